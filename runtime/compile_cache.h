// Reuses compiled pipeline libraries: asking twice for the same app, size, target, schedule and
// options in one process plans, schedules and generates code once.
//
// The key is structural: the app's Funcs are built (cheap) and printed canonically
// (runtime/pipeline_fingerprint.h), so fresh Func objects for the same algorithm hit, and any change
// to the algorithm, its shapes or estimates misses. Next to it: the app and size, the Halide target
// string, the schedule, the output folder, the request's options as their canonical text (every
// knob's value, SolderOptions::canonical_text; `fallback` left out, being about running, not
// compiling), and whether a compile fault is injected.
//
// The cache is an LRU of bounded size, safe to use from several threads: one compilation per key
// even when many threads ask at once (the others wait for it and share its result or its error);
// different keys compile concurrently. Failures are not cached.
//
// Libraries are named app__schedule__target__size__HASH.so, HASH from the key, so builds with
// different knobs never overwrite each other, and written under a temporary name then renamed, so a
// reader never sees half a file. With the disk option, a library already in the output folder is
// reused when the key recorded in its info (the key plus the identity of this Solder build) matches.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/app_build.h"

namespace solder {

struct CompileCacheOptions {
    size_t capacity = 32;  // entries kept in memory; 0 turns the in-memory cache off
    bool disk = false;     // reuse a matching library found in the output folder
};

struct CompileCacheStats {
    int64_t hits = 0;          // served from memory (including waiting for a compilation in flight)
    int64_t misses = 0;        // not in memory
    int64_t disk_hits = 0;     // misses served by a library already on disk
    int64_t compilations = 0;  // schedule + code generation runs (failed ones included)
    int64_t evictions = 0;
    int64_t peak_parallel = 0;  // most compilations seen running at the same time
};

class CompileCache {
public:
    explicit CompileCache(CompileCacheOptions opt = {}) : opt_(opt) {}
    CompileCache(const CompileCache &) = delete;
    CompileCache &operator=(const CompileCache &) = delete;
    // Same contract as build_app_library (runtime/app_build.h).
    AppBuild build(const AppBuildRequest &req);
    CompileCacheStats stats() const;
    size_t size() const;
    // The process-wide cache: capacity from SOLDER_CACHE_ENTRIES (default 32), disk reuse when
    // SOLDER_CACHE_DISK=1. Throws if either is malformed.
    static CompileCache &shared();

private:
    struct Entry;  // a result (or a compilation in flight) and its place in the LRU list
    AppBuild compile(const AppBuildRequest &req, BuiltPipeline &p, const std::string &key);

    CompileCacheOptions opt_;
    mutable std::mutex mu_;
    std::list<std::string> lru_;  // keys, most recently used first
    std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
    CompileCacheStats stats_;
    int64_t running_ = 0;  // compilations in progress
};

// build_app_library through CompileCache::shared(): what `solder run` and the tests use.
AppBuild build_app_library_cached(const AppBuildRequest &req);

// The cache key (see above) and its 16-hex-digit hash; exposed for tests.
std::string compile_cache_key(const AppBuildRequest &req, const BuiltPipeline &p);
std::string key_hash(const std::string &key);

}  // namespace solder
