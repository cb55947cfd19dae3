"""Solder from Python, through the halide wheel's bindings alone: load the installed plugin, define a
pipeline, apply_autoscheduler with Solder, compile and run it on the host and on OpenCL, and check
it against numpy. Also: a misspelled parameter and a missing estimate are each one clear error.

    python tests/python/plugin_test.py PREFIX/lib/libautoschedule_solder.so
Prints 'N passed, M failed' last; exit 0 only when nothing failed."""
import sys

import halide as hl
import numpy as np

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def unsharp(image):
    """An unsharp mask over a clamped border, sizes from the input."""
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    blur_x, blur_y, out = hl.Func("blur_x"), hl.Func("blur_y"), hl.Func("sharp")
    blur_x[x, y] = (clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]) / 3
    blur_y[x, y] = (blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 3
    out[x, y] = 2 * image[x, y] - blur_y[x, y]
    return out


def reference(a):
    p = np.pad(a, 1, mode="edge")
    bx = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3
    by = (bx[:-2, :] + bx[1:-1, :] + bx[2:, :]) / 3
    return 2 * a - by


def main():
    hl.load_plugin(sys.argv[1])
    for target_name in ["host", "host-opencl"]:
        image = hl.ImageParam(hl.Float(32), 2, "image")
        out = unsharp(image)
        image.set_estimates([(0, 1024), (0, 768)])
        out.set_estimates([(0, 1024), (0, 768)])
        target = hl.get_host_target()
        if target_name == "host-opencl":
            target = target.with_feature(hl.TargetFeature.OpenCL)
        p = hl.Pipeline(out)
        result = p.apply_autoscheduler(target, hl.AutoschedulerParams("Solder", {"parallelism": "16"}))
        check(f"{target_name}: the schedule names Solder's plan", "plan for pipeline" in result.schedule_source)
        p.compile_jit(target)
        for h, w in [(768, 1024), (37, 53), (1, 1)]:
            a = np.random.default_rng(h * w).random((h, w), dtype=np.float32)
            image.set(hl.Buffer(a))
            o = p.realize([w, h], target)
            o.copy_to_host()
            got = np.asarray(o)
            err = float(np.max(np.abs(got - reference(a))))
            check(f"{target_name}: {w}x{h} matches numpy", err < 1e-5, f"(max error {err})")
    # Funcs their author scheduled first (a compute_at into a Func Solder retiles, a split of the
    # output): replaced by the plan, said in its text, and the result still matches.
    image = hl.ImageParam(hl.Float(32), 2, "image4")
    out = unsharp(image)
    image.set_estimates([(0, 256), (0, 256)])
    out.set_estimates([(0, 256), (0, 256)])
    x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
    out.split(x, xo, xi, 16).parallel(y)
    target = hl.get_host_target().with_feature(hl.TargetFeature.OpenCL)
    p = hl.Pipeline(out)
    result = p.apply_autoscheduler(target, hl.AutoschedulerParams("Solder", {}))
    check("an author's split is replaced, and the plan says so",
          "scheduled before auto-scheduling (parallel, split): replaced by the plan" in result.schedule_source,
          result.schedule_source[:300])
    p.compile_jit(target)
    a = np.random.default_rng(7).random((41, 77), dtype=np.float32)
    image.set(hl.Buffer(a))
    o = p.realize([77, 41], target)
    o.copy_to_host()
    err = float(np.max(np.abs(np.asarray(o) - reference(a))))
    check("an author-scheduled pipeline matches numpy", err < 1e-5, f"(max error {err})")
    # A misspelled parameter: one error that names it and lists the valid ones.
    image = hl.ImageParam(hl.Float(32), 2, "image2")
    out = unsharp(image)
    image.set_estimates([(0, 64), (0, 64)])
    out.set_estimates([(0, 64), (0, 64)])
    try:
        hl.Pipeline(out).apply_autoscheduler(hl.get_host_target(), hl.AutoschedulerParams("Solder", {"paralelism": "8"}))
        check("a misspelled parameter is an error", False, "(accepted)")
    except Exception as e:  # Halide's Python bindings raise its errors as exceptions
        msg = str(e)
        check("a misspelled parameter is an error naming it", "paralelism" in msg and "parallelism" in msg, msg[:200])
    # A missing estimate: one error naming the Func and what to call.
    image = hl.ImageParam(hl.Float(32), 2, "image3")
    out = unsharp(image)
    image.set_estimates([(0, 64), (0, 64)])
    try:
        hl.Pipeline(out).apply_autoscheduler(hl.get_host_target(), hl.AutoschedulerParams("Solder", {}))
        check("a missing estimate is an error", False, "(accepted)")
    except Exception as e:
        msg = str(e)
        check("a missing estimate is an error naming the Func", "sharp" in msg and "set_estimates" in msg, msg[:200])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
