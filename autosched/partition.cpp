#include "autosched/partition.h"

#include <algorithm>
#include <cstdio>

#include "autosched/model/contraction.h"
#include "autosched/model/cost_model.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/generic/generic.h"
#include "schedules/registry.h"
#include "schedules/row/shared_reductions.h"

namespace solder::autosched {

namespace {

bool eight_bit_values(const Halide::Internal::Function &f) {
    for (const Halide::Type &t : f.output_types())
        if (t.bits() > 8) return false;
    return true;
}

}  // namespace

const char *const kReadByExternReason =
    "an extern stage reads it: stored, over the extern's region at the estimates, or its own estimates where their "
    "dimensions differ (Halide's bounds query asks for the region when the pipeline runs)";

std::vector<bool> forced_roots(const FuncGraph &g, const PlannerOptions &opt, std::map<int, std::string> &why) {
    std::vector<bool> root(g.nodes.size(), false);
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const FuncNode &n = g.nodes[i];
        if (n.is_input) continue;
        if (n.is_output) root[i] = true;
        if (n.read_by_extern) root[i] = true, why[int(i)] = kReadByExternReason;
        // (A generic Func that reduces per point may instead be computed in its reader's threads:
        // choose_kernel takes it into a kernel only where the pointwise template reads it one to one.)
        if (!n.generic.empty() && !n.generic_per_point)
            root[i] = true, why[int(i)] = "takes the generic template: " + n.generic;
        if (!n.is_output && has_specializations(n.function))
            root[i] = true, why[int(i)] = "it has specializations (Func::specialize), so Halide cannot inline it";
        if (opt.keep_unfused.count(n.name) || opt.keep_unfused.count(name_as_written(n.name)))
            root[i] = true, why[int(i)] = "kept out of fusion by the keep_unfused option";
        if (opt.author_roots.count(n.name))
            root[i] = true, why[int(i)] = "its author computed it at root (compute_root() before auto-scheduling)";
        for (int e : n.out_edges)
            if (g.edges[e].access == Access::DataDependent)
                root[i] = true,
                why[int(i)] = "read with a data-dependent index by " + g.nodes[g.edges[e].consumer].name;
    }
    // A Func of 8-bit values the bin of a block-per-cell scatter is computed from (its update's
    // stored-to index): stored, so that the bin is one load. Inlined, the computed index made Halide
    // emit each increment as a compare-and-swap loop instead of an atomic add: local binary
    // patterns' 256-bin histograms per cell took 70.5 us on the H200, 13.7 from stored codes.
    // (Wider values would leave Halide no bound on the bin, where the inlined expression had one:
    // the per-cell bins in shared memory would have none.)
    for (const FuncNode &n : g.nodes) {
        if (n.is_input || n.updates != 1 || !adds_atomically_per_cell(n, opt)) continue;
        for (const std::string &f : funcs_in_stored_index(n.function, 0)) {
            const int j = g.find(f);
            if (j < 0 || g.nodes[size_t(j)].is_input || root[size_t(j)] ||
                !eight_bit_values(g.nodes[size_t(j)].function))
                continue;
            root[size_t(j)] = true;
            why[j] = "the bin of " + n.name +
                     "'s per-cell scatter is computed from it (stored: the bin is then one load, and each increment "
                     "an atomic add)";
        }
    }
    return root;
}

namespace {

// The kernels node i's consumers are computed in.
std::set<int> consumer_kernels(const FuncGraph &g, const std::vector<std::set<int>> &groups, int i) {
    std::set<int> kernels;
    for (int e : g.nodes[size_t(i)].out_edges) {
        const auto &cg = groups[size_t(g.edges[size_t(e)].consumer)];
        kernels.insert(cg.begin(), cg.end());
    }
    return kernels;
}

}  // namespace

int shared_reduction_host(const FuncGraph &g, const std::vector<bool> &root, const std::set<int> &readers, int i) {
    const FuncNode &S = g.nodes[size_t(i)];
    if (readers.size() < 2 || root[size_t(i)] || !S.is_reduction() || S.is_output || S.dims.empty()) return -1;
    const int h = *readers.begin();
    const FuncNode &H = g.nodes[size_t(h)];
    if (!root[size_t(h)] || H.is_reduction() || H.dims.size() <= S.dims.size()) return -1;
    const size_t first = H.dims.size() - S.dims.size();
    for (size_t d = 0; d < S.dims.size(); d++)
        if (S.dims[d] != H.dims[first + d] || S.region[d].extent() != H.region[first + d].extent()) return -1;
    return h;
}

std::set<int> kernel_group_of(const FuncGraph &g, const std::vector<bool> &root,
                              const std::vector<std::set<int>> &groups, int i, bool share) {
    if (root[i]) return {i};
    std::set<int> group = consumer_kernels(g, groups, i);
    if (share)
        if (const int h = shared_reduction_host(g, root, group, i); h >= 0) return {h};
    return group;
}

std::vector<std::set<int>> kernel_groups(const FuncGraph &g, const std::vector<bool> &root, bool share) {
    const int N = int(g.nodes.size());
    std::vector<std::set<int>> groups(N);
    for (int i = N - 1; i >= 0; i--)
        if (!g.nodes[i].is_input) groups[i] = kernel_group_of(g, root, groups, i, share);
    return groups;
}

namespace {

// The most resampling reads (FuncGraph::read_through_resampling) along any chain of Funcs from node
// `i` to its kernel's root, consumers' roots already decided. `memo`: -1 for not yet known.
int resampling_depth(const FuncGraph &g, const std::vector<bool> &root, int i, std::vector<int> &memo) {
    if (memo[size_t(i)] >= 0) return memo[size_t(i)];
    int depth = 0;
    for (int e : g.nodes[size_t(i)].out_edges) {
        const FuncEdge &E = g.edges[size_t(e)];
        const int below = root[size_t(E.consumer)] ? 0 : resampling_depth(g, root, E.consumer, memo);
        depth = std::max(depth, below + (E.resamples() ? 1 : 0));
    }
    return memo[size_t(i)] = depth;
}

}  // namespace

std::vector<int> resampling_depths(const FuncGraph &g, const std::vector<bool> &root) {
    std::vector<int> memo(g.nodes.size(), -1);
    for (size_t i = g.nodes.size(); i-- > 0;) resampling_depth(g, root, int(i), memo);  // consumers first
    return memo;
}

namespace {

// A reduction in a kernel node `i` is computed in that reads it (`downstream`), or that it reads,
// directly or through pure Funcs computed there too (attention's row maximum reads its scores
// through the scaled scores; an SSIM map reads its windowed sums through the means and variances):
// its name, or empty.
std::string reduction_in_kernel(const FuncGraph &g, const std::vector<bool> &root,
                                const std::vector<std::set<int>> &groups, int i, bool downstream) {
    std::vector<int> todo{i};
    std::set<int> seen{i};
    while (!todo.empty()) {
        const int at = todo.back();
        todo.pop_back();
        for (int e : downstream ? g.nodes[size_t(at)].out_edges : g.nodes[size_t(at)].in_edges) {
            const int n = downstream ? g.edges[size_t(e)].consumer : g.edges[size_t(e)].producer;
            if (n < 0) continue;
            const bool same_kernel = root[size_t(n)]
                                         ? groups[size_t(i)].count(n) > 0
                                         : std::any_of(groups[size_t(n)].begin(), groups[size_t(n)].end(),
                                                       [&](int k) { return groups[size_t(i)].count(k) > 0; });
            if (!same_kernel || !seen.insert(n).second) continue;
            if (g.nodes[size_t(n)].is_reduction()) return g.nodes[size_t(n)].name;
            if (!root[size_t(n)]) todo.push_back(n);
        }
    }
    return "";
}
std::string reduction_reading_in_kernel(const FuncGraph &g, const std::vector<bool> &root,
                                        const std::vector<std::set<int>> &groups, int i) {
    return reduction_in_kernel(g, root, groups, i, true);
}
std::string reduction_read_in_kernel(const FuncGraph &g, const std::vector<bool> &root,
                                     const std::vector<std::set<int>> &groups, int i) {
    return reduction_in_kernel(g, root, groups, i, false);
}

// Whether node `c` reads node `p` (an edge between them).
bool reads_directly(const FuncGraph &g, int c, int p) {
    for (int e : g.nodes[size_t(c)].in_edges)
        if (g.edges[size_t(e)].producer == p) return true;
    return false;
}

// The one reader of node `p` where it is a pure Func, computed in the same kernels, reading `p` at
// its own points with the dims in some order (attention's scaled scores `s(j, t) = sum$1(t, j) /
// 8`); -1 otherwise.
int one_pure_reader(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &groups,
                    int p) {
    const FuncNode &P = g.nodes[size_t(p)];
    if (P.out_edges.size() != 1) return -1;
    const int c = g.edges[size_t(P.out_edges[0])].consumer;
    const FuncNode &C = g.nodes[size_t(c)];
    const bool pure_reader = !root[size_t(c)] && !C.is_reduction() && C.updates == 0 &&
                             groups[size_t(c)] == groups[size_t(p)] && C.dims.size() == P.dims.size() &&
                             !permuted_read(C.function, P.name).empty();
    return pure_reader ? c : -1;
}

// Contractions (autosched/model/contraction.h) are not computed in a kernel where a reduction reads
// them (attention's scores in the softmax's row kernel, whose maximum reads them): each block would
// compute its points alone, loading both operands at every step. Stored, a kernel of their own
// computes 4 x 4 points per thread, sharing each load. Where the contraction's one reader is a pure
// Func that reads it at its own points (in any order: attention's scaled scores `s(j, t) =
// sum$1(t, j) / 8`), that reader is stored instead, the contraction computed in its kernel and
// stored in its order. The reason for node `i`, or empty.
std::string contraction_rule(const FuncGraph &g, const std::vector<bool> &root,
                             const std::vector<std::set<int>> &groups, int i) {
    const FuncNode &n = g.nodes[size_t(i)];
    if (!n.is_reduction() && n.updates == 0)
        for (int e : n.in_edges) {
            const int p = g.edges[size_t(e)].producer;
            const FuncNode &P = g.nodes[size_t(p)];
            if (P.is_input || !contraction_somewhere(P, kContractionSpan)) continue;
            // Stored, the contraction would be laid out in its own order, which its one reader
            // transposes (`s(j, t) = sum$1(t, j) / 8`, read along j by the softmax).
            if (root[size_t(p)] && P.out_edges.size() == 1 && P.dims.size() == n.dims.size()) {
                const std::vector<int> perm = permuted_read(n.function, P.name);
                bool moved = false;
                for (size_t d = 0; d < perm.size(); d++) moved |= perm[d] != int(d);
                if (moved)
                    return "reads the stored contraction " + P.name +
                           " with its dims in another order: stored in its own order, its kernel computes " + P.name +
                           " 4 x 4 points per thread, and its readers read it along its rows";
            }
            if (root[size_t(p)] || one_pure_reader(g, root, groups, p) != i) continue;
            if (std::string r = reduction_reading_in_kernel(g, root, groups, i); !r.empty())
                return "reads the contraction " + g.nodes[size_t(p)].name + " at its own points, and the reduction " +
                       r + " reads it in its kernel: stored, its own kernel computes the contraction 4 x 4 points " +
                       "per thread, sharing each load, where each block would load both operands at every step";
        }
    // (A contraction with one such reader is left to the reader's rule, above.)
    if (!contraction_somewhere(n, kContractionSpan) || one_pure_reader(g, root, groups, i) >= 0) return "";
    if (std::string r = reduction_reading_in_kernel(g, root, groups, i); !r.empty())
        return "a contraction read by the reduction " + r +
               " in its kernel: each block would compute its points alone, loading both operands at every step; "
               "stored, its own kernel shares each load among 4 x 4 points";
    return "";
}

}  // namespace

std::string storage_rule(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root,
                         const std::vector<std::set<int>> &groups, int i, const std::vector<int> *depths) {
    const FuncNode &n = g.nodes[i];
    if (n.is_input || root[i]) return "";
    std::string names;
    for (int k : groups[i]) names += (names.empty() ? "" : ", ") + g.nodes[k].name;
    if (n.is_reduction() && groups[i].size() > 1)
        return "a reduction used by several kernels (" + names + ") is computed once and stored";
    if (n.is_reduction() && !opt.compute_at)
        return "compute_at is disabled: a reduction cannot be fused into its consumer";
    if (!opt.remat && groups[i].size() > 1)
        return "used by several kernels (" + names + ") and recompute (remat) is disabled";
    for (int k : groups[i])
        if (!g.nodes[k].generic.empty() && (n.is_reduction() || n.updates > 0))
            return "feeds " + g.nodes[k].name + ", whose generic kernel computes nothing inside it but inlined Funcs";
    // A pyramid's levels fused into one kernel: each level's region is bounded through every
    // resampling below it, and Halide's bounds expressions (and, inlined, the Funcs' own) double
    // with each; eight levels of a local Laplacian filter took minutes to compile on the host.
    std::vector<int> memo;
    if (!depths) memo.assign(g.nodes.size(), -1);
    if ((depths ? (*depths)[size_t(i)] : resampling_depth(g, root, i, memo)) > kMaxResamplingsPerKernel)
        return "read through more than " + std::to_string(kMaxResamplingsPerKernel) +
               " resamplings (pyramid levels) inside the kernel of " + names;
    // The Func a 0-d reduction sums, computed from another reduction in its kernel (a mean over an
    // SSIM map of windowed sums): stored here, not the reduction below it (the rule after this
    // one), it takes a template of its own (the map's stencil tiles, its sums computed per tile) and
    // the total reduction template slices the root over it. Left to the next rule, a user's mean
    // SSIM of two 2K images stored each pass of its five blurs, and the search, 20000 partitions
    // with the mean's sum fused, stopped at a plan estimated at 416 us (the map's tiles: 20 us).
    if (opt.gpu && !n.is_reduction() && n.updates == 0)
        for (int k : groups[i])
            if (g.nodes[size_t(k)].dims.empty() && g.nodes[size_t(k)].is_reduction() && reads_directly(g, k, i))
                if (std::string r = reduction_read_in_kernel(g, root, groups, i); !r.empty())
                    return "summed by the 0-d reduction " + g.nodes[size_t(k)].name +
                           " and computed from the reduction " + r +
                           " in its kernel: stored, its own kernel fuses what it reads, and " +
                           g.nodes[size_t(k)].name + "'s slices read it";
    if (n.is_reduction())
        for (int k : groups[i])
            if (g.nodes[k].is_reduction())
                return "feeds the reduction " + g.nodes[k].name +
                       ", and Solder does not nest a reduction inside another reduction's kernel yet";
    if (opt.gpu && opt.register_tiles && opt.contraction_tiles)
        if (std::string why = contraction_rule(g, root, groups, i); !why.empty()) return why;
    return "";
}

namespace {

Partition evaluate(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root, KernelCache *cache,
                   bool check_rules, MendRules rules) {
    const int N = int(g.nodes.size());
    Partition p;
    p.root = root;
    // (A partition another scheduler made is scored as it computes: no reduction hosted.)
    const bool share = check_rules && shares_reductions(opt);
    p.groups = kernel_groups(g, root, share);
    // Consumers first, as the search decides them.
    const std::vector<int> depths = check_rules ? resampling_depths(g, root) : std::vector<int>();
    for (int i = N - 1; i >= 0 && p.violation < 0 && check_rules; i--) {
        std::string why = storage_rule(g, opt, root, p.groups, i, &depths);
        if (!why.empty()) p.violation = i, p.violation_reason = why;
    }
    if (p.violation >= 0) return p;
    // Each kernel's members, in node order, in one pass over the groups.
    std::vector<std::vector<int>> members_of(static_cast<size_t>(N));
    for (int i = 0; i < N; i++)
        if (!root[i] && !g.nodes[i].is_input)
            for (int r : p.groups[i]) members_of[size_t(r)].push_back(i);
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        std::vector<int> &members = members_of[size_t(r)];
        KernelChoice kc;
        auto key = std::make_pair(r, members);
        auto hit = cache ? cache->find(key) : KernelCache::iterator();
        if (cache && hit != cache->end()) {
            kc = hit->second;
        } else {
            kc = choose_kernel(g, opt, r, members);
            if (cache) cache->emplace(std::move(key), kc);
        }
        if (!kc.ok && check_rules) {
            p.violation = rules.cut_nearest && kc.cut_offender >= 0 ? kc.cut_offender : kc.offender;
            p.violation_reason = !kc.offense.empty() ? kc.offense
                                                     : "its per-block footprint in " + g.nodes[r].name + "'s kernel (" +
                                                           kb_text(kc.offender_bytes) + ") exceeds shared memory (" +
                                                           kb_text(opt.device.shared_memory_bytes) + ")";
            p.choice.clear();
            return p;
        }
        if (rules.cap_recompute && kc.recompute_offender >= 0) {
            char factor[32];
            std::snprintf(factor, sizeof factor, "%.3g", kc.recompute_factor);
            p.violation = kc.recompute_offender;
            p.violation_reason = "inlined into " + g.nodes[r].name + "'s kernel, it would be recomputed " + factor +
                                 " times per point (through a chain of stencils or resamplings); the search's "
                                 "greedy start stores it";
            p.choice.clear();
            return p;
        }
        p.total_bytes += kc.bytes_read + 3 * kc.split_bytes + g.nodes[r].bytes();
        p.est_us += CostModel(opt.device).choice_us(kc, g.nodes[r].bytes());
        p.choice[r] = kc;
    }
    if (share && check_rules) {
        // Each shared reduction's host kernel must compute it per block and can write it.
        for (int i = 0; i < N && p.violation < 0; i++) {
            if (root[i] || g.nodes[i].is_input || !g.nodes[i].is_reduction() || p.groups[i].size() != 1) continue;
            const std::set<int> readers = consumer_kernels(g, p.groups, i);
            if (readers.size() < 2) continue;
            const int h = *p.groups[i].begin();
            std::string why = shared_reduction_why_not(g, p.choice, h, i);
            if (why.empty() && !p.hosted.empty() && p.hosted.begin()->second != h)
                why = "the row kernel of " + g.nodes[p.hosted.begin()->second].name +
                      " already writes a reduction other kernels read (one host per plan)";
            if (!why.empty()) {
                std::string names;
                for (int k : readers) names += (names.empty() ? "" : ", ") + g.nodes[k].name;
                p.violation = i;
                p.violation_reason =
                    "a reduction used by several kernels (" + names + ") is computed once and stored: " + why;
                p.choice.clear();
                return p;
            }
            p.hosted[i] = h;
        }
    }
    return p;
}

}  // namespace

Partition evaluate_partition(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root,
                             KernelCache *cache, MendRules rules) {
    return evaluate(g, opt, root, cache, true, rules);
}

Partition score_partition(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root) {
    return evaluate(g, opt, root, nullptr, false, {});
}

std::vector<std::set<int>> kernel_dependencies(const FuncGraph &g, const std::vector<bool> &root,
                                               const std::vector<std::set<int>> &groups,
                                               const std::map<int, int> &hosted) {
    const int N = int(g.nodes.size());
    std::vector<std::set<int>> deps(N);
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        for (auto &e : g.edges) {
            // The kernel that writes the producer: its own, or the host of a shared reduction.
            auto h = hosted.find(e.producer);
            const int q = h != hosted.end() ? h->second : root[e.producer] ? e.producer : -1;
            if (q < 0 || q == r || !(e.consumer == r || (!root[e.consumer] && groups[e.consumer].count(r)))) continue;
            deps[r].insert(q);
            deps[r].insert(deps[q].begin(), deps[q].end());
        }
    }
    return deps;
}

}  // namespace solder::autosched
