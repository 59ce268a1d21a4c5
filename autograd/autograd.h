#pragma once
// The autograd module in one include: Variable, FunctionNode, backward and grad, the
// basic differentiable arithmetic, modes, hooks, gradient checks and graph export.

#include "autograd/basic_math.h"
#include "autograd/computational_graph.h"
#include "autograd/function_hook.h"
#include "autograd/function_node.h"
#include "autograd/grad.h"
#include "autograd/gradient_check.h"
#include "autograd/modes.h"
#include "autograd/shape_ops.h"
#include "autograd/variable.h"
