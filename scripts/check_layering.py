#!/usr/bin/env python3
"""Checks that Solder's includes run one way, from the bottom layer up:

    core -> specs, lang, model -> templates -> planner -> apps -> runtime -> cli

core/ (types, text helpers); specs (apps' Halide-free half: shapes, inputs, references);
lang/ (the tensor layer); autosched/model/ (graph analysis, Plan, cost model, options);
schedules/ (the kernel templates and the schedule writer); autosched/ (the planner);
apps/ (the pipelines); runtime/ (compiling, running, named schedules, dumps); cli/.
A file may include its own layer and the layers its layer lists below. Tests, benchmarks and
examples sit on top and are not checked. Exits 1, listing every include that runs the wrong
way, or 0.

    scripts/check_layering.py [ROOT]
    scripts/check_layering.py --self-test   (the check catches an upward include)
"""
import os
import re
import sys

# Each layer and the layers it may include (besides itself).
ALLOWED = {
    "core": set(),
    "specs": {"core"},
    "lang": {"core"},
    "model": {"core"},
    "templates": {"core", "model"},
    "planner": {"core", "model", "templates"},
    "apps": {"core", "specs", "lang"},
    "runtime": {"core", "specs", "lang", "model", "templates", "planner", "apps"},
    "cli": {"core", "specs", "lang", "model", "templates", "planner", "apps", "runtime"},
}

SPEC_FILES = re.compile(r"^apps/(app_spec\.(h|cpp)|registry\.(h|cpp)|ref_util\.h|[^/]+/(spec\.cpp|shapes\.h))$")


def layer_of(path):
    """The layer of a repository-relative path, or None for files no layer owns."""
    if path.startswith("core/"):
        return "core"
    if path.startswith("lang/"):
        return "lang"
    if path.startswith("autosched/model/"):
        return "model"
    if path.startswith("schedules/"):
        return "templates"
    if path.startswith("autosched/"):
        return "planner"
    if path.startswith("apps/"):
        return "specs" if SPEC_FILES.match(path) else "apps"
    if path.startswith("runtime/"):
        return "runtime"
    if path.startswith("cli/"):
        return "cli"
    return None


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def violations(root):
    found = []
    for top in ("core", "lang", "autosched", "schedules", "apps", "runtime", "cli"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".h", ".cpp", ".inc")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                mine = layer_of(path)
                if mine is None:
                    continue
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for target in INCLUDE.findall(text):
                    theirs = layer_of(target)
                    if theirs is None or theirs == mine or theirs in ALLOWED[mine]:
                        continue
                    found.append(f"{path} ({mine}) includes {target} ({theirs})")
    return found


def self_test():
    """The check finds an include that runs the wrong way, and passes one that runs the right way."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        write("core/a.h", "#pragma once\n")
        write("autosched/model/m.h", '#include "core/a.h"\n')
        write("schedules/t/t.cpp", '#include "autosched/model/m.h"\n#include "core/a.h"\n')
        if violations(root):
            print("self-test: a tree that runs one way was refused:", violations(root))
            return 1
        write("autosched/model/bad.cpp", '#include "schedules/t/t.h"\n')
        write("core/bad.h", '#  include "runtime/x.h"\n')
        bad = violations(root)
        if len(bad) != 2:
            print("self-test: expected 2 violations, found", bad)
            return 1
    print("self-test: upward includes are caught")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad = violations(root)
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} include(s) against the layering (scripts/check_layering.py lists the layers)")
        return 1
    print("layering: every include runs one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
