#!/usr/bin/env python3
"""Draws docs/bench-cpu.svg and docs/bench-cpu-decode.svg from the tables in
docs/bench-cpu.md.

The first plot shows the attention cases' GFLOP/s per sequence length for
each implementation, with the FMA peak measured in the same run as a line;
the second the decode cases' % of the roofline bound per cached key count
(the Decode section's last column), posenc's fused kernel per query rows
and K/V type and the C++ baseline in gray, with the issue's targets (60 and
70 %) as lines. The pictures are always the printed figures (no plotting
package is needed: the SVG is written directly).

Usage: bench/plot_bench.py [docs/bench-cpu.md] [docs/bench-cpu.svg [DECODE.svg]]
(DECODE.svg: the first SVG's name with -decode before .svg unless given;
a plot whose rows the page lacks is not drawn.)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLORS = {"plain": "#1f77b4", "rope": "#d62728", "alibi": "#2ca02c",
          "shaw16": "#9467bd", "shaw64": "#8c564b"}
DASH = {"fused": "", "naive": "6,4", "reference": "2,3"}
SQ_COLORS = {1: "#1f77b4", 4: "#d62728", 16: "#2ca02c"}
KV_DASH = {"f32": "", "f16": "6,4", "bf16": "2,3"}
DECODE_ROW = re.compile(
    r"\|\s*decode-(gqa|mha)-q(\d+)-k(\d+)-(\w+)\s*\|\s*(\w+)\s*\|\s*(\w+)\s*\|"
    r".*\|\s*([0-9.]+)\s*\|\s*$")


def parse(markdown):
    peak = float(re.search(r"FMA peak ([0-9.]+) GFLOP/s", markdown).group(1))
    series = {}
    for line in markdown.splitlines():
        m = re.match(r"\|\s*attn-(\w+)-s(\d+)\s*\|\s*(\w+)\s*\|\s*[0-9.]+\s*\|\s*([0-9.]+)\s*\|", line)
        if m and int(m.group(2)) <= 4096:
            enc, s, impl, gflops = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
            series.setdefault((enc, impl), []).append((s, gflops))
    return peak, series


class Frame:
    """An SVG plot area w x h with margins: categorical x positions `xs`
    (evenly spaced; one value in the middle), y from 0 to `ymax`, a title,
    grid lines every `ystep` and the axes' labels."""

    def __init__(self, xs, ymax, margins, title, ystep, xlabel, ylabel):
        self.w, self.h = 760, 420
        self.left, self.bottom, self.top, self.right = margins
        self.xs, self.ymax = xs, ymax
        w, h, left, bottom, top, right = (self.w, self.h, self.left, self.bottom,
                                          self.top, self.right)
        self.out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                    'font-family="sans-serif" font-size="12">',
                    f'<rect width="{w}" height="{h}" fill="white"/>',
                    f'<text x="{left}" y="18" font-size="14">{title}</text>']
        for v in range(0, int(ymax) + 1, ystep):
            self.out.append(f'<line x1="{left}" y1="{self.py(v):.1f}" x2="{w - right}" '
                            f'y2="{self.py(v):.1f}" stroke="#ddd"/>')
            self.out.append(f'<text x="{left - 8}" y="{self.py(v) + 4:.1f}" '
                            f'text-anchor="end">{v}</text>')
        for x in xs:
            self.out.append(f'<text x="{self.px(x):.1f}" y="{h - bottom + 18}" '
                            f'text-anchor="middle">{xlabel}={x}</text>')
        mid = (h - bottom + top) / 2
        self.out.append(f'<text x="16" y="{mid:.0f}" transform="rotate(-90 16 {mid:.0f})" '
                        f'text-anchor="middle">{ylabel}</text>')

    def px(self, x):
        if len(self.xs) == 1:
            return (self.left + self.w - self.right) / 2
        return self.left + (self.w - self.left - self.right) * self.xs.index(x) / (len(self.xs) - 1)

    def py(self, v):
        return self.h - self.bottom - (self.h - self.bottom - self.top) * v / self.ymax

    def hline(self, v):
        """A dotted line across the plot at y = v."""
        self.out.append(f'<line x1="{self.left}" y1="{self.py(v):.1f}" x2="{self.w - self.right}" '
                        f'y2="{self.py(v):.1f}" stroke="black" stroke-dasharray="1,3"/>')

    def svg(self):
        return "\n".join(self.out + ["</svg>"]) + "\n"


def parse_decode(markdown):
    """{(heads, sq, kv, impl): [(sk, % of bound)]} and the ISAs of the Decode
    section's rows."""
    start = markdown.find("## Decode")
    series, isas = {}, set()
    for line in (markdown[start:] if start >= 0 else "").splitlines():
        m = DECODE_ROW.match(line)
        if m:
            heads, sq, sk, kv, impl, isa, pct = m.groups()
            series.setdefault((heads, int(sq), kv, impl), []).append((int(sk), float(pct)))
            isas.add(isa)
    return series, isas


def svg_decode(series, isas):
    xs = sorted({sk for points in series.values() for sk, _ in points})
    ymax = max([100.0] + [v for points in series.values() for _, v in points]) * 1.05
    heads = "/".join(sorted({key[0].upper() for key in series}))
    f = Frame(xs, ymax, (70, 50, 30, 190),
              f'posenc decode ({heads}), D=128, 2 threads, {", ".join(sorted(isas))}: '
              '% of the roofline bound (docs/bench-cpu.md)', 20, "Sk", "% of roofline bound")
    w, right, top, out, px, py = f.w, f.right, f.top, f.out, f.px, f.py
    for target in (60, 70):
        f.hline(target)
        out.append(f'<text x="{w - right - 4}" y="{py(target) - 4:.1f}" fill="#555" '
                   f'text-anchor="end">target {target} %</text>')
    legend_y = top + 10
    naive_drawn = False
    for (hd, sq, kv, impl), points in sorted(series.items(),
                                             key=lambda kv_: (kv_[0][3] != "fused", kv_[0])):
        points = sorted(points)
        fused = impl == "fused"
        color = SQ_COLORS.get(sq, "#444") if fused else "#999"
        dash, width = KV_DASH.get(kv, ""), 2 if fused else 1
        path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                   f'stroke-width="{width}" stroke-dasharray="{dash}"/>')
        for s, v in points:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(v):.1f}" r="{3 if fused else 2}" '
                       f'fill="{color}"/>')
        if fused or not naive_drawn:
            label = f"Sq={sq} {kv}" if fused else "C++ loop (naive)"
            if len({key[0] for key in series}) > 1 and fused:
                label = f"{hd} {label}"
            out.append(f'<line x1="{w - right + 6}" y1="{legend_y}" x2="{w - right + 30}" '
                       f'y2="{legend_y}" stroke="{color}" stroke-width="{width}" '
                       f'stroke-dasharray="{dash}"/>')
            out.append(f'<text x="{w - right + 36}" y="{legend_y + 4}">{label}</text>')
            legend_y += 18
            naive_drawn |= not fused
    return f.svg()


def svg(peak, series):
    xs = [512, 1024, 2048, 4096]
    f = Frame(xs, peak * 1.05, (70, 50, 30, 170),
              "posenc causal attention, D=128, H=32, f32, 2 threads (docs/bench-cpu.md)",
              100, "S", "GFLOP/s")
    w, right, top, out, px, py = f.w, f.right, f.top, f.out, f.px, f.py
    f.hline(peak)
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
    return f.svg()


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "bench-cpu.md")
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "bench-cpu.svg")
    dst_decode = (sys.argv[3] if len(sys.argv) > 3
                  else os.path.splitext(dst)[0] + "-decode.svg")
    markdown = open(src).read()
    series = parse(markdown)[1] if "FMA peak" in markdown else {}
    decode, isas = parse_decode(markdown)
    if not series and not decode:
        sys.exit(f"no attention or decode rows in {src}")
    if series:
        with open(dst, "w") as fh:
            fh.write(svg(parse(markdown)[0], series))
        print(f"wrote {dst}")
    if decode:
        with open(dst_decode, "w") as fh:
            fh.write(svg_decode(decode, isas))
        print(f"wrote {dst_decode}")


if __name__ == "__main__":
    main()
