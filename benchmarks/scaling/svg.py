"""A small hand-written SVG line plot: efficiency against ranks on a log2 axis."""
import math
from xml.sax.saxutils import escape

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 440, 60, 200, 40, 50


def _x(ranks, max_ranks):
    return LEFT + (WIDTH - LEFT - RIGHT) * math.log2(ranks) / math.log2(max_ranks)


def _y(value):
    return TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - max(0.0, min(1.0, value)))


def _axes(max_ranks):
    parts = [f'<line x1="{LEFT}" y1="{_y(0)}" x2="{WIDTH - RIGHT}" y2="{_y(0)}" stroke="black"/>',
             f'<line x1="{LEFT}" y1="{_y(0)}" x2="{LEFT}" y2="{_y(1)}" stroke="black"/>']
    ranks = 1
    while ranks <= max_ranks:
        x = _x(ranks, max_ranks)
        parts.append(f'<text x="{x:.1f}" y="{_y(0) + 18}" font-size="11" text-anchor="middle">{ranks}</text>')
        ranks *= 2
    for tick in range(0, 11, 2):
        y = _y(tick / 10)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick / 10:.1f}</text>')
    parts.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 10}" font-size="12" '
                 f'text-anchor="middle">ranks N</text>')
    parts.append(f'<text x="16" y="{(TOP + HEIGHT - BOTTOM) / 2}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(TOP + HEIGHT - BOTTOM) / 2})">efficiency E(N)</text>')
    return parts


def plot(title, series, points=()):
    """series: [(label, [(ranks, efficiency)])] drawn as lines; points: [(label, ranks, value,
    filled)] drawn as marks (filled: measured, hollow: predicted). Returns the SVG text."""
    max_ranks = max(r for _, curve in series for r, _ in curve)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{LEFT}" y="22" font-size="14">{escape(title)}</text>'] + _axes(max_ranks)
    for i, (label, curve) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        path = " ".join(f"{_x(r, max_ranks):.1f},{_y(e):.1f}" for r, e in curve)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}"/>')
        y = TOP + 18 * i
        parts.append(f'<line x1="{WIDTH - RIGHT + 10}" y1="{y}" x2="{WIDTH - RIGHT + 30}" y2="{y}" '
                     f'stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 35}" y="{y + 4}" font-size="11">{escape(label)}</text>')
    for label, ranks, value, filled in points:
        x, y = _x(ranks, max_ranks), _y(value)
        fill = "black" if filled else "none"
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{fill}" stroke="black"/>')
        if label:
            parts.append(f'<text x="{x + 6:.1f}" y="{y - 6:.1f}" font-size="10">{escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
