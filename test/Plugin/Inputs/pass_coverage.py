"""Checks that test/Plugin/every-pass.mlir runs every posenc pass and
pipeline that the plugin registers, and that the plugin registers what
posenc-opt does (less posenc-opt's test-only passes).

  pass_coverage.py --plugin-help FILE --tool-help FILE
                   [--test-only NAME...] --runs TEST

The registered names are the `--posenc-...` entries of the two `--help`
outputs (passes and pipelines are listed the same way); the names a test
runs are the `posenc-...` names inside its `--pass-pipeline="..."`
arguments. Prints the count on success; exits non-zero naming what is
missing otherwise.
"""
import argparse
import re
import sys

HELP_ENTRY = re.compile(r"^\s+--(posenc-[a-z0-9-]+)", re.MULTILINE)
PIPELINE_ARG = re.compile(r'--pass-pipeline="([^"]*)"')
POSENC_NAME = re.compile(r"\b(posenc-[a-z0-9-]+)")


def registered(path):
    with open(path) as f:
        return set(HELP_ENTRY.findall(f.read()))


def run_in(path):
    """Names in the --pass-pipeline arguments of the test's RUN lines (a
    RUN line continued with `\\` is joined first)."""
    text = []
    with open(path) as f:
        for line in f:
            match = re.match(r"\s*//\s*RUN:(.*)", line)
            if match:
                text.append(match.group(1).rstrip().rstrip("\\"))
    joined = " ".join(text)
    names = set()
    for pipeline in PIPELINE_ARG.findall(joined):
        names.update(POSENC_NAME.findall(pipeline))
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--plugin-help", required=True)
    parser.add_argument("--tool-help", required=True)
    parser.add_argument("--test-only", nargs="*", default=[])
    parser.add_argument("--runs", required=True)
    args = parser.parse_args()

    plugin = registered(args.plugin_help)
    tool = registered(args.tool_help) - set(args.test_only)
    covered = run_in(args.runs)
    errors = []
    if not plugin:
        errors.append("the plugin's --help lists no posenc pass")
    if plugin != tool:
        errors.append("registered by posenc-opt but not by the plugin: "
                      f"{sorted(tool - plugin)}; by the plugin only: {sorted(plugin - tool)}")
    if plugin - covered:
        errors.append(f"registered but not run by {args.runs}: {sorted(plugin - covered)}")
    if covered - plugin:
        errors.append(f"run by {args.runs} but not registered: {sorted(covered - plugin)}")
    if errors:
        sys.exit("\n".join(errors))
    print(f"every posenc pass and pipeline of the plugin is run: {len(plugin)}")
    for name in sorted(plugin):
        print(f"  {name}")


if __name__ == "__main__":
    main()
