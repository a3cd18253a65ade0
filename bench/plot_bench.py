#!/usr/bin/env python3
"""Draws docs/bench-cpu.svg from the table in docs/bench-cpu.md.

The plot shows the attention cases' GFLOP/s per sequence length for each
implementation, with the FMA peak measured in the same run as a line, so the
picture is always the printed figures (no plotting package is needed: the SVG
is written directly).

Usage: bench/plot_bench.py [docs/bench-cpu.md] [docs/bench-cpu.svg]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLORS = {"plain": "#1f77b4", "rope": "#d62728", "alibi": "#2ca02c",
          "shaw16": "#9467bd", "shaw64": "#8c564b"}
DASH = {"fused": "", "naive": "6,4", "reference": "2,3"}


def parse(markdown):
    peak = float(re.search(r"FMA peak ([0-9.]+) GFLOP/s", markdown).group(1))
    series = {}
    for line in markdown.splitlines():
        m = re.match(r"\|\s*attn-(\w+)-s(\d+)\s*\|\s*(\w+)\s*\|\s*[0-9.]+\s*\|\s*([0-9.]+)\s*\|", line)
        if m and int(m.group(2)) <= 4096:
            enc, s, impl, gflops = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
            series.setdefault((enc, impl), []).append((s, gflops))
    return peak, series


def svg(peak, series):
    w, h, left, bottom, top, right = 760, 420, 70, 50, 30, 170
    xs = [512, 1024, 2048, 4096]
    ymax = peak * 1.05

    def px(s):
        return left + (w - left - right) * xs.index(s) / (len(xs) - 1)

    def py(v):
        return h - bottom - (h - bottom - top) * v / ymax

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="14">posenc causal attention, D=128, H=32, '
           'f32, 2 threads (docs/bench-cpu.md)</text>']
    for v in range(0, int(ymax) + 1, 100):
        out.append(f'<line x1="{left}" y1="{py(v):.1f}" x2="{w - right}" y2="{py(v):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{py(v) + 4:.1f}" text-anchor="end">{v}</text>')
    for s in xs:
        out.append(f'<text x="{px(s):.1f}" y="{h - bottom + 18}" text-anchor="middle">S={s}</text>')
    out.append(f'<text x="16" y="{(h - bottom + top) / 2:.0f}" '
               f'transform="rotate(-90 16 {(h - bottom + top) / 2:.0f})" '
               'text-anchor="middle">GFLOP/s</text>')
    out.append(f'<line x1="{left}" y1="{py(peak):.1f}" x2="{w - right}" y2="{py(peak):.1f}" '
               'stroke="black" stroke-dasharray="1,3"/>')
    out.append(f'<text x="{w - right + 6}" y="{py(peak) + 4:.1f}">FMA peak {peak:.0f}</text>')
    legend_y = top + 40
    for (enc, impl), points in sorted(series.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        points = sorted(p for p in points if p[0] in xs)
        if not points:
            continue
        color, dash = COLORS.get(enc, "#444"), DASH.get(impl, "")
        path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2" '
                   f'stroke-dasharray="{dash}"/>')
        for s, v in points:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(v):.1f}" r="3" fill="{color}"/>')
        out.append(f'<line x1="{w - right + 6}" y1="{legend_y}" x2="{w - right + 30}" '
                   f'y2="{legend_y}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>')
        out.append(f'<text x="{w - right + 36}" y="{legend_y + 4}">{enc} ({impl})</text>')
        legend_y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "bench-cpu.md")
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "bench-cpu.svg")
    peak, series = parse(open(src).read())
    if not series:
        sys.exit(f"no attention rows in {src}")
    with open(dst, "w") as fh:
        fh.write(svg(peak, series))
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
