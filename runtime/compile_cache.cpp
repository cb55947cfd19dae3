#include "runtime/compile_cache.h"
#include "runtime/library_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <shared_mutex>
#include <stdexcept>
#include <vector>

#include "runtime/halide_error.h"
#include "runtime/pipeline_fingerprint.h"
#include "runtime/aot_compiler.h"
#include "runtime/pipeline_library.h"
#include "runtime/targets.h"
#include "runtime/schedule_registry.h"

namespace solder {
namespace fs = std::filesystem;

struct CompileCache::Entry {
    std::shared_future<AppBuild> result;
    std::list<std::string>::iterator lru;
};

namespace {

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

// Halide is built to compile different pipelines on different threads at once (no IR is shared
// between our keys; LLVM's one-time setup is guarded inside Halide). What is not safe is fork():
// Solder runs Halide's auto-schedulers in a forked child first (runtime/halide_autoschedulers.cpp),
// and a child forked while another thread holds a lock (in Halide, LLVM, stdio) inherits that lock
// held forever and can hang. So builds with those schedules take this lock alone; all other builds
// share it and run in parallel.
std::shared_mutex &fork_guard() {
    static std::shared_mutex m;
    return m;
}

bool schedule_forks(const std::string &schedule) {
    const ScheduleChoice *s = find_schedule(schedule);
    return s && s->forks;
}

// What a library on disk must have been built by to be reused: this Halide, this executable (the
// planner and templates are linked into it) and these launch hooks (linked into every library).
// Size and modification time stand for the files' contents: a rebuild changes them.
std::string build_identity() {
    static const std::string id = [] {
        auto stamp = [](const std::string &path) {
            struct stat st {};
            if (stat(path.c_str(), &st) != 0) return std::string("missing");
            return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                   std::to_string(st.st_mtim.tv_nsec);
        };
        return "halide " + std::to_string(HALIDE_VERSION_MAJOR) + "." + std::to_string(HALIDE_VERSION_MINOR) + "." +
               std::to_string(HALIDE_VERSION_PATCH) + "; exe " + stamp("/proc/self/exe") + "; hooks " +
               stamp(launch_hooks_object());
    }();
    return id;
}

// A library already in the output folder, reused only if its recorded key is the one wanted: a
// file from another Solder build, or anything that is not a Solder library, is compiled over.
bool reuse_from_disk(const std::string &so, const std::string &disk_key, AppBuild *b) {
    std::error_code ec;
    if (!fs::is_regular_file(so, ec)) return false;
    // Damaged since it was written (truncated, overwritten in place): compiled over, never mapped.
    if (!checksum_problem(so).empty()) return false;
    std::string err;
    auto lib = PipelineLibrary::open(so, &err);
    if (!lib || lib->info("cache_key") != disk_key) return false;
    b->library_path = so;
    std::string n = lib->info("loop_nests");
    b->loop_nests = n.empty() ? 0 : std::stoi(n);
    return true;
}

// The files written for a stem (.a, .h, .info.cpp, .link.log, .so, and whatever else a later
// step adds): every file named STEM.something.
std::vector<fs::path> files_of(const std::string &dir, const std::string &stem) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (auto &e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        if (name.compare(0, stem.size() + 1, stem + ".") == 0) found.push_back(e.path());
    }
    return found;
}

// Gives the files of `from` the stem `to`, the .so last: once it has its final name the library is
// complete.
void rename_stem(const std::string &dir, const std::string &from, const std::string &to) {
    fs::path so;
    for (auto &f : files_of(dir, from)) {
        fs::path dest = fs::path(dir) / (to + f.filename().string().substr(from.size()));
        if (f.extension() == ".so")
            so = f;
        else
            fs::rename(f, dest);
    }
    if (so.empty()) throw std::runtime_error("compiling left no library named " + from + ".so in " + dir);
    fs::rename(so, fs::path(dir) / (to + ".so"));
}

size_t parse_count(const std::string &name, const std::string &v, size_t def) {
    if (v.empty()) return def;
    size_t used = 0;
    long long n = -1;
    try {
        n = std::stoll(v, &used);
    } catch (const std::exception &) {}
    if (n < 0 || used != v.size())
        throw std::runtime_error(name + " must be a number of entries (0 or more), not '" + v + "'");
    return size_t(n);
}

}  // namespace

std::string key_hash(const std::string &key) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
    return b;
}

std::string compile_cache_key(const AppBuildRequest &req, const BuiltPipeline &p) {
    std::string k = "solder compile cache key 2\n";
    k += "app " + req.app + "\nsize " + size_name(req.size) + "\ntarget " + make_target(req.target).to_string() +
         "\nschedule " + req.schedule + "\nout " + (req.out_dir.empty() ? default_out_dir() : req.out_dir) + "\n";
    // `fallback` decides what runs after a failure (runtime/fallback_run.h), not what is compiled:
    // builds that differ in it share a library.
    SolderOptions compiled = req.options;
    compiled.fallback = SolderOptions{}.fallback;
    k += "options\n" + compiled.canonical_text();
    k += std::string("inject_compile_fault ") + (req.inject_compile_fault ? "1" : "0") + "\n";
    return k + with_halide_errors(req.app + ": printing its Funcs",
                                  [&] { return pipeline_fingerprint(p.inputs, p.outputs, p.scalars); });
}

AppBuild CompileCache::build(const AppBuildRequest &req) {
    BuiltPipeline p;
    std::string key;
    {
        std::shared_lock<std::shared_mutex> halide_work(fork_guard());
        p = build_app_funcs(req);
        key = compile_cache_key(req, p);
    }
    if (opt_.capacity == 0) {
        {
            std::lock_guard<std::mutex> l(mu_);
            stats_.misses++;
        }
        return compile(req, p, key);
    }

    std::promise<AppBuild> promise;
    std::shared_ptr<Entry> mine;
    std::shared_future<AppBuild> result;
    {
        std::lock_guard<std::mutex> l(mu_);
        auto it = entries_.find(key);
        if (it != entries_.end()) {
            stats_.hits++;
            lru_.splice(lru_.begin(), lru_, it->second->lru);
            result = it->second->result;
        } else {
            stats_.misses++;
            mine = std::make_shared<Entry>();
            mine->result = result = promise.get_future().share();
            lru_.push_front(key);
            mine->lru = lru_.begin();
            entries_[key] = mine;
            while (entries_.size() > opt_.capacity) {
                // Waiters of an evicted entry still hold its future; only the map forgets it.
                entries_.erase(lru_.back());
                lru_.pop_back();
                stats_.evictions++;
            }
        }
    }
    if (!mine) return result.get();  // rethrows the compiling thread's error, if it failed

    try {
        promise.set_value(compile(req, p, key));
    } catch (...) {
        {
            // Failures are not cached: the next request tries again.
            std::lock_guard<std::mutex> l(mu_);
            auto it = entries_.find(key);
            if (it != entries_.end() && it->second == mine) {
                lru_.erase(mine->lru);
                entries_.erase(it);
            }
        }
        promise.set_exception(std::current_exception());
    }
    return result.get();
}

AppBuild CompileCache::compile(const AppBuildRequest &req, BuiltPipeline &p, const std::string &key) {
    std::string dir = req.out_dir.empty() ? default_out_dir() : req.out_dir;
    std::string stem =
        req.app + "__" + req.schedule + "__" + req.target + "__" + size_name(req.size) + "__" + key_hash(key);
    std::string disk_key = key_hash(key + "\nbuilt by " + build_identity());
    std::string so = (fs::path(dir) / (stem + ".so")).string();
    AppBuild b;
    if (opt_.disk && reuse_from_disk(so, disk_key, &b)) {
        std::lock_guard<std::mutex> l(mu_);
        stats_.disk_hits++;
        return b;
    }
    {
        std::lock_guard<std::mutex> l(mu_);
        stats_.compilations++;
        stats_.peak_parallel = std::max(stats_.peak_parallel, ++running_);
    }
    struct Done {
        CompileCache *c;
        ~Done() {
            std::lock_guard<std::mutex> l(c->mu_);
            c->running_--;
        }
    } done{this};

    // A temporary stem unique to this process and call: another process (or an earlier entry of
    // this one) may be writing the same library right now.
    static std::atomic<uint64_t> counter{0};
    LibraryNaming naming;
    naming.stem = stem + ".tmp" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    naming.extra_info["cache_key"] = disk_key;
    auto remove_temporaries = [&] {
        std::error_code ec;
        for (auto &f : files_of(dir, naming.stem)) fs::remove(f, ec);
    };
    try {
        if (schedule_forks(req.schedule)) {
            std::unique_lock<std::shared_mutex> alone(fork_guard());
            b = schedule_and_compile(req, p, naming);
        } else {
            std::shared_lock<std::shared_mutex> shared(fork_guard());
            b = schedule_and_compile(req, p, naming);
        }
        rename_stem(dir, naming.stem, stem);
        if (std::string bad = write_checksum(so); !bad.empty()) throw std::runtime_error(bad);
    } catch (...) {
        remove_temporaries();
        throw;
    }
    b.library_path = so;
    return b;
}

CompileCacheStats CompileCache::stats() const {
    std::lock_guard<std::mutex> l(mu_);
    return stats_;
}

size_t CompileCache::size() const {
    std::lock_guard<std::mutex> l(mu_);
    return entries_.size();
}

CompileCache &CompileCache::shared() {
    static CompileCache cache([] {
        CompileCacheOptions o;
        o.capacity = parse_count("SOLDER_CACHE_ENTRIES", env("SOLDER_CACHE_ENTRIES"), o.capacity);
        std::string disk = env("SOLDER_CACHE_DISK");
        if (disk != "" && disk != "0" && disk != "1")
            throw std::runtime_error("SOLDER_CACHE_DISK must be 0 or 1, not '" + disk + "'");
        o.disk = disk == "1";
        return o;
    }());
    return cache;
}

AppBuild build_app_library_cached(const AppBuildRequest &req) { return CompileCache::shared().build(req); }

}  // namespace solder
