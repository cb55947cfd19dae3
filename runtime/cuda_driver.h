// The CUDA driver, loaded at run time (solder-exec and the tests link no CUDA), and the device's
// primary context, where Solder's launch hooks put Halide's kernels. Shared by the L2 flush and
// the event timer, which resolve the entry points they call once, not on every timed run.
// Without a GPU (or driver) ok() is false and every entry point is null.
#pragma once

namespace solder {

class CudaDriver {
public:
    CudaDriver();
    CudaDriver(const CudaDriver &) = delete;
    CudaDriver &operator=(const CudaDriver &) = delete;
    bool ok() const { return ctx_ != nullptr; }
    // A driver entry point by name, cast to its type (null if the driver or the name is missing).
    template<typename F> F sym(const char *name) const { return reinterpret_cast<F>(raw_sym(name)); }
    // Runs `body` with the primary context current, then restores the previous one.
    template<typename Body> void in_context(Body body) const {
        push_(ctx_);
        body();
        void *old;
        pop_(&old);
    }

private:
    void *raw_sym(const char *name) const;
    void *lib_ = nullptr;
    void *ctx_ = nullptr;
    int (*push_)(void *) = nullptr;
    int (*pop_)(void **) = nullptr;
};

}  // namespace solder
