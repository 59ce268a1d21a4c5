"""rensa.training.triggers (chainer.training.triggers)."""
from rensa._core.training.triggers import (  # noqa: F401
    BestValueTrigger, EarlyStoppingTrigger, IntervalTrigger, ManualScheduleTrigger,
    MaxValueTrigger, MinValueTrigger, OnceTrigger, TimeTrigger, get_trigger)

__all__ = ['BestValueTrigger', 'EarlyStoppingTrigger', 'IntervalTrigger',
           'ManualScheduleTrigger', 'MaxValueTrigger', 'MinValueTrigger', 'OnceTrigger',
           'TimeTrigger', 'get_trigger']
