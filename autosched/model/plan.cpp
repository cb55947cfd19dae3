#include "autosched/model/plan.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/quoted.h"

namespace solder::autosched {

const char *placement_name(Placement p) {
    switch (p) {
    case Placement::Root: return "root";
    case Placement::Inline: return "inline";
    case Placement::ComputeAtBlock: return "compute_at";
    }
    return "?";
}

const FuncPlan *Plan::find(const std::string &func) const {
    for (auto &f : funcs)
        if (f.func == func) return &f;
    return nullptr;
}

namespace {

// ", inputs a, b loaded 4 steps at a time" (PointwiseParams::vector_inputs), or nothing.
std::string vector_inputs_text(const std::vector<std::string> &inputs, int steps) {
    if (inputs.empty()) return "";
    std::string list;
    for (auto &n : inputs) list += (list.empty() ? "" : ", ") + n;
    return std::string(inputs.size() == 1 ? ", input " : ", inputs ") + list + " loaded " + std::to_string(steps) +
           " steps at a time where aligned";
}
std::string js(const std::string &s) { return quote_literal(s); }
std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}
template<typename T, typename F> std::string list(const std::vector<T> &v, F f) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? ", " : "") + f(v[i]);
    return o + "]";
}
}  // namespace

std::string mb_text(int64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.2f MB", double(b) / 1e6);
    return s;
}

std::string kb_text(int64_t b) { return std::to_string((b + 1023) / 1024) + " KB"; }

const char *template_name(TemplateKind k) {
    switch (k) {
    case TemplateKind::Pointwise: return "pointwise";
    case TemplateKind::Single: return "single";
    case TemplateKind::BlockReduction: return "block_reduction";
    case TemplateKind::StencilTile: return "stencil_tile";
    case TemplateKind::Row: return "row";
    case TemplateKind::InnerOuter: return "inner_outer";
    case TemplateKind::Generic: return "generic";
    case TemplateKind::ReductionTile: return "reduction_tile";
    case TemplateKind::TotalReduction: return "total_reduction";
    }
    return "?";
}

int KernelPlan::vector_width() const {
    if (auto *p = get<PointwiseParams>()) return p->vector_width;
    if (auto *r = get<RowParams>()) return r->vector_width;
    if (auto *io = get<InnerOuterParams>()) return io->vector_width;
    return 1;
}

int KernelPlan::rows_per_block() const {
    if (auto *r = get<RowParams>()) return r->rows_per_block;
    if (auto *io = get<InnerOuterParams>()) return io->rows;
    if (auto *p = get<PointwiseParams>()) return p->threads_y;
    return 1;
}

int KernelPlan::row_threads() const {
    if (auto *r = get<RowParams>()) return r->row_threads;
    if (auto *io = get<InnerOuterParams>()) return io->lanes;
    return 0;
}

const std::vector<StagedInput> &KernelPlan::staged() const {
    static const std::vector<StagedInput> none;
    if (auto *r = get<RowParams>()) return r->staged;
    if (auto *io = get<InnerOuterParams>()) return io->staged;
    return none;
}

const std::string &KernelPlan::split_func() const {
    static const std::string none;
    return split ? split->func : none;
}

std::string Plan::to_json() const {
    std::ostringstream o;
    o << "{\"app\": " << js(app) << ",\n \"kernels\": "
      << list(kernels,
              [](const KernelPlan &k) {
                  const RowParams *row = k.get<RowParams>();
                  const StencilTileParams *tile = k.get<StencilTileParams>();
                  const InnerOuterParams *io = k.get<InnerOuterParams>();
                  const SplitK *sk = k.split ? &*k.split : nullptr;
                  return "{\"name\": " + js(k.name) + ", \"template\": " + js(k.template_name()) +
                         ", \"vector_width\": " + std::to_string(k.vector_width()) +
                         ", \"rows_per_block\": " + std::to_string(k.rows_per_block()) +
                         (tile && tile->whole_tiles ? ", \"whole_tiles\": true" : std::string()) +
                         (tile && !tile->guarded_because.empty()
                              ? ", \"edge_tiles_guarded\": " + js(tile->guarded_because)
                              : std::string()) +
                         (k.grid_in_x ? ", \"grid_in_x\": true" : std::string()) +
                         (k.row_threads() > 0 ? ", \"row_threads\": " + std::to_string(k.row_threads())
                                              : std::string()) +
                         (row && row->warps > 0 ? ", \"row_warps\": " + std::to_string(row->warps) : std::string()) +
                         (!row || row->unrolled_dims.empty()
                              ? std::string()
                              : ", \"unrolled_dims\": " +
                                    list(row->unrolled_dims, [](auto d) { return std::to_string(d.first); })) +
                         ", \"launches\": " + std::to_string(k.launches) +
                         (!sk ? std::string()
                              : ", \"split_k\": {\"func\": " + js(sk->func) + ", \"partials\": " + js(sk->partials) +
                                    ", \"slices\": " + std::to_string(sk->slices) +
                                    ", \"blocks\": " + std::to_string(sk->blocks) +
                                    (sk->contraction_dy > 0
                                         ? ", \"contraction_dims\": [" + std::to_string(sk->contraction_dx) + ", " +
                                               std::to_string(sk->contraction_dy) + "]"
                                         : std::string()) +
                                    (sk->group.empty() ? std::string()
                                                       : ", \"shared_with\": " + list(sk->group, js) +
                                                             ", \"dim\": " + std::to_string(sk->dim) +
                                                             ", \"rows\": " + std::to_string(sk->rows) +
                                                             ", \"vector\": " + std::to_string(sk->vector)) +
                                    (sk->launched_with.empty() ? std::string()
                                                               : ", \"launched_with\": " + js(sk->launched_with)) +
                                    "}") +
                         (io ? ", \"column_sums\": {\"funcs\": " + list(io->column_sums, js) + ", \"rows\": " +
                                   std::to_string(io->rows) + ", \"slices\": " + std::to_string(io->slices) + "}"
                             : std::string()) +
                         ", \"staged\": " +
                         list(k.staged(),
                              [](const StagedInput &s) {
                                  return "{\"func\": " + js(s.func) +
                                         ", \"bytes_per_block\": " + std::to_string(s.bytes_per_block) + "}";
                              }) +
                         ", \"horizontal_with\": " + list(k.with, js) +
                         (k.side.empty()
                              ? std::string()
                              : ", \"side_outputs\": " + list(k.side,
                                                              [](const SideOutput &s) {
                                                                  return "{\"func\": " + js(s.func) +
                                                                         ", \"readers\": " + list(s.readers, js) +
                                                                         (s.shared ? ", \"shared\": true" : "") + "}";
                                                              })) +
                         ", \"funcs\": " + list(k.funcs, js) + ", \"outputs\": " + list(k.outputs, js) +
                         ", \"bytes_read\": " + std::to_string(k.bytes_read) +
                         ", \"bytes_written\": " + std::to_string(k.bytes_written) + ", \"est_us\": " + num(k.est_us) +
                         "}";
              })
      << ",\n \"materialized\": "
      << list(materialized,
              [](const MaterializedTensor &m) {
                  return "{\"func\": " + js(m.func) +
                         ", \"shape\": " + list(m.shape, [](int64_t v) { return std::to_string(v); }) +
                         ", \"type\": " + js(m.type) + ", \"bytes\": " + std::to_string(m.bytes) + "}";
              })
      << ",\n \"placements\": "
      << list(funcs,
              [](const FuncPlan &f) {
                  return "{\"func\": " + js(f.func) + ", \"placement\": " + js(placement_name(f.placement)) +
                         (f.anchor.empty() ? "" : ", \"at\": " + js(f.anchor)) +
                         (f.row_dim.empty() ? "" : ", \"row_dim\": " + js(f.row_dim)) +
                         (f.thread_dim.empty() ? "" : ", \"thread_dim\": " + js(f.thread_dim)) + "}";
              })
      << ",\n \"total_bytes\": " << total_bytes << ", \"min_bytes\": " << min_bytes << ", \"est_us\": " << num(est_us)
      << ", \"search\": " << js(search) << (fixed_sizes ? "" : ", \"fixed_sizes\": false") << ",\n \"explanations\": "
      << list(explanations,
              [](const Explanation &e) {
                  return "{\"producer\": " + js(e.producer) + ", \"consumer\": " + js(e.consumer) +
                         ", \"reason\": " + js(e.reason) + "}";
              })
      << "}\n";
    return o.str();
}

std::string Plan::to_text() const {
    std::ostringstream o;
    o << "plan for " << app << ": " << kernels.size() << " kernel" << (kernels.size() == 1 ? "" : "s") << ", "
      << mb_text(total_bytes) << " moved (minimum " << mb_text(min_bytes) << ", ratio "
      << (min_bytes ? num(double(total_bytes) / double(min_bytes)) : "-") << "), est " << num(est_us) << " us\n";
    if (!search.empty()) o << "  search: " << search << "\n";
    if (!fixed_sizes) o << "  sizes: planned at the estimates, correct at any size (every tail guarded)\n";
    for (auto &k : kernels) {
        std::string writes = k.root;
        if (!k.with.empty()) writes += " and " + std::to_string(k.with.size()) + " more (horizontal)";
        for (auto &so : k.side)
            writes += " and " + so.func + (so.shared ? " (shared reduction, for other kernels)" : " (side output)");
        const RowParams *row = k.get<RowParams>();
        const StencilTileParams *tile = k.get<StencilTileParams>();
        const InnerOuterParams *io = k.get<InnerOuterParams>();
        const SplitK *sk = k.split ? &*k.split : nullptr;
        std::string vec = k.vector_width() > 1 ? ", x" + std::to_string(k.vector_width()) + " vectors" : "";
        const PointwiseParams *transposed = k.get<PointwiseParams>();
        if (transposed && transposed->transposed_source.empty()) transposed = nullptr;
        if (k.rows_per_block() > 1 && !transposed) vec += ", " + std::to_string(k.rows_per_block()) + " rows per block";
        if (const PointwiseParams *pw = k.get<PointwiseParams>(); pw && pw->flat)
            vec += ", its dims but the last fused along " + std::to_string(pw->threads_x) + " threads";
        if (const PointwiseParams *pw = k.get<PointwiseParams>(); pw && pw->unroll_rows > 1)
            vec += ", " + std::to_string(pw->unroll_rows) + " rows per thread";
        if (const PointwiseParams *pw = k.get<PointwiseParams>(); pw && pw->unroll_dim == 0) {
            // An interleaved root: its dim 0's points in each thread.
            vec += ", dim 0's points in each thread, the threads over dims 1 and 2";
            if (pw->unroll_extent > 0)
                vec += ", its " + std::to_string(pw->unroll_extent) + " points unrolled" +
                       (fixed_sizes ? std::string()
                                    : " where the output's dim 0 has " + std::to_string(pw->unroll_extent) + " from 0");
        } else if (pw && pw->unroll_dim >= 0) {
            vec += ", the " + std::to_string(pw->unroll_extent) + " points of dim " + std::to_string(pw->unroll_dim) +
                   (pw->unroll_vector ? " a vector in each thread" : " unrolled in each thread") +
                   (fixed_sizes ? std::string()
                                : " where the output's dim " + std::to_string(pw->unroll_dim) + " has " +
                                      std::to_string(pw->unroll_extent) + " from 0");
        }
        if (transposed)
            vec += ", " + std::to_string(transposed->threads_x) + " x " + std::to_string(transposed->threads_x) +
                   " tiles over dims 0 and " + std::to_string(transposed->transposed_root_dim) + ", " +
                   transposed->transposed_source +
                   (transposed->transposed_staged ? " read transposed through shared memory"
                                                  : " read in place and transposed, each tile's rows shared in L1");
        const PointwiseParams *reg = k.get<PointwiseParams>();
        if (reg && reg->register_members.empty() && !reg->register_root) reg = nullptr;
        if (reg && reg->register_cols > 1)
            vec += ", " + std::to_string(reg->register_cols) + " x " + std::to_string(reg->register_rows) +
                   " points per thread, a contraction's steps shared by them in registers" +
                   (reg->register_root ? std::string(" (an intermediate of the root's steps)") : std::string()) +
                   vector_inputs_text(reg->vector_inputs, reg->vector_steps);
        else if (reg)
            vec += ", " + std::to_string(reg->register_rows) +
                   (reg->register_dim_y >= 2 ? " points of dim " + std::to_string(reg->register_dim_y) : " rows") +
                   " per thread, their windows reduced together in registers" +
                   (reg->register_root ? std::string(" (an intermediate of the root's window)") : std::string()) +
                   (reg->register_shared_dim >= 0
                        ? ", with " + std::to_string(reg->register_shared_points) + " points of dim " +
                              std::to_string(reg->register_shared_dim) + " sharing their window's common work"
                        : std::string());
        if (const PointwiseParams *pw = k.get<PointwiseParams>(); pw && pw->serial_dim >= 0)
            vec += ", dim " + std::to_string(pw->serial_dim) + " walked in each thread" +
                   (pw->serial_unroll > 1 ? " (unrolled by " + std::to_string(pw->serial_unroll) + ")" : "");
        if (k.row_threads() > 0) vec += ", " + std::to_string(k.row_threads()) + " threads per row";
        if (row && row->warps > 0)
            vec += ", " + std::to_string(row->warps) + (row->warps == 1 ? " warp" : " warps") +
                   " per row (shuffle reductions on CUDA)";
        if (row)
            for (auto d : row->unrolled_dims) vec += ", dim " + std::to_string(d.first) + " unrolled";
        auto two_d_lanes = [&](const BlockReductionParams &br) {
            if (br.lanes_x > 0)
                vec += ", " + std::to_string(br.lanes_x) + " x " + std::to_string(br.lanes / br.lanes_x) +
                       " lanes (innermost two RVars)";
        };
        if (const BlockReductionParams *br = k.get<BlockReductionParams>()) two_d_lanes(*br);
        if (const TotalReductionParams *tr = k.get<TotalReductionParams>()) {
            vec += ", " + std::to_string(tr->slices) + " slices of " + std::to_string(tr->slice_rows) +
                   (tr->sliced_rvar_name.empty() ? std::string(" steps of the outermost RVar")
                                                 : " steps of its RVar " + tr->sliced_rvar_name +
                                                       " (the outermost has fewer; each slice walks "
                                                       "the RVars outside it too)") +
                   (tr->sliced_rvar2 >= 0
                        ? ", each cut again into " + std::to_string(tr->slices2) + " of " +
                              std::to_string(tr->slice_rows2) + " steps of its RVar " + tr->sliced_rvar2_name
                        : std::string()) +
                   (tr->lane_results ? ", one block each for every result, its " + std::to_string(tr->threads) +
                                           " threads along the results and then " + std::to_string(tr->lanes) +
                                           " lanes of the innermost RVar"
                                     : std::string(" per result, one block each")) +
                   ", their partials added by one block per result";
            two_d_lanes(tr->slice);  // (none in the lane-results layout)
        }
        if (const ReductionTileParams *rt = k.get<ReductionTileParams>())
            vec += ", each 32 x 32 tile steps through " + rt->reduction + "'s " + rt->rvar +
                   (rt->per_step.empty() ? std::string(" (nothing staged per step)")
                                         : " with " + rt->per_step + " per tile at each step");
        if (const GenericParams *gp = k.get<GenericParams>()) {
            if (gp->shared_bins)
                vec += ", a scatter in chunks (of rows, or of a 1-D RDom's points), their bins in shared memory";
            if (gp->shared_bins && !gp->shared_bins_when.empty())
                vec += " where " + gp->shared_bins_when + " (elsewhere each increment atomic in global memory)";
            if (gp->one_block) vec += ", every stage in one block's shared memory, written once through a copy";
            if (gp->cell_lanes > 0)
                vec += ", a block per point of the pure vars its scatter writes as they are, their bins in shared "
                       "memory, its RDom over " +
                       std::to_string(gp->cell_lanes) + " threads, written once through a copy";
            if (gp->cell_threads > 0)
                vec +=
                    ", a thread per point of the pure vars its scatter writes as they are (a cell) walking its RDom, " +
                    std::to_string(gp->cell_threads) +
                    " cells per block, their bins in shared memory, written once through a copy";
            if (gp->scan_tile_rows > 0 && gp->in_registers)
                vec += ", each point in a thread's registers, in 32 x " + std::to_string(gp->scan_tile_rows) +
                       " tiles, written once through a copy";
            else if (gp->scan_tile_rows > 0)
                vec += ", its scan per 32 x " + std::to_string(gp->scan_tile_rows) +
                       " tile in shared memory, written once through a copy";
            for (size_t s = 0; s < gp->stage_over_rdom.size(); s++)
                if (gp->stage_over_rdom[s])
                    vec += ", stage " + std::to_string(s) +
                           (s < gp->stage_row_lanes.size() && gp->stage_row_lanes[s] > 0
                                ? " a block per RDom point, its rows over " + std::to_string(gp->stage_row_lanes[s]) +
                                      " threads"
                                : " over its RDom's points");
            for (size_t s = 0; s < gp->stage_rvar_threads.size(); s++)
                if (gp->stage_rvar_threads[s])
                    vec += ", stage " + std::to_string(s) +
                           "'s innermost RVar over the threads, a launch per step of its outer RVars";
            for (size_t s = 0; s < gp->stage_step_threads.size(); s++)
                if (gp->stage_step_threads[s] > 0)
                    vec += ", stage " + std::to_string(s) + " in one block, its innermost RVar over " +
                           std::to_string(gp->stage_step_threads[s]) + " threads, a barrier between steps";
            for (size_t s = 0; s < gp->stage_spread_blocks.size(); s++)
                if (gp->stage_spread_blocks[s] > 0)
                    vec += ", stage " + std::to_string(s) + "'s blocks " + std::to_string(gp->stage_spread_blocks[s]) +
                           " apart along grid x";
            for (size_t s = 0; s < gp->stage_walk_threads.size(); s++)
                if (gp->stage_walk_threads[s] > 0)
                    vec += ", stage " + std::to_string(s) +
                           " a walk of its outer RVars per point of its innermost, in blocks of " +
                           std::to_string(gp->stage_walk_threads[s]);
            for (size_t s = 0; s < gp->stage_serial_outer.size(); s++)
                if (gp->stage_serial_outer[s] > 0)
                    vec += ", stage " + std::to_string(s) + " loops its outer " +
                           std::to_string(gp->stage_serial_outer[s]) +
                           (gp->stage_serial_outer[s] == 1 ? " dim" : " dims") + " in each thread";
            for (size_t s = 0; s < gp->stage_threads.size(); s++)
                if (gp->stage_threads[s] > 0 && gp->stage_threads[s] != 256)
                    vec += ", stage " + std::to_string(s) + " in blocks of " + std::to_string(gp->stage_threads[s]);
            for (size_t s = 0; s < gp->stage_points_in_walk.size(); s++)
                if (gp->stage_points_in_walk[s] > 0)
                    vec += ", stage " + std::to_string(s) + " " + std::to_string(gp->stage_points_in_walk[s]) +
                           " points per thread inside its walk";
                else if (gp->stage_points_in_walk[s] < 0)
                    vec += ", stage " + std::to_string(s) + " a block per point of the vars its predicate loads at";
            for (size_t s = 0; s < gp->stage_unroll.size(); s++)
                if (gp->stage_unroll[s] == 1)
                    vec += ", stage " + std::to_string(s) + " walked a step at a time";
                else if (gp->stage_unroll[s] > 0)
                    vec += ", stage " + std::to_string(s) + " walked " + std::to_string(gp->stage_unroll[s]) +
                           " steps at a time";
        }
        if (tile && tile->whole_tiles)
            vec += fixed_sizes ? ", edge tiles shifted inwards"
                               : ", edge tiles shifted inwards where the output spans a tile, guarded elsewhere";
        if (tile && !tile->guarded_because.empty()) vec += ", edge tiles guarded: " + tile->guarded_because;
        if (k.grid_in_x) vec += ", block dims fused into grid x";
        o << "  " << k.name << " [" << k.template_name() << vec << "] writes " << writes << ": reads "
          << mb_text(k.bytes_read) << ", writes " << mb_text(k.bytes_written) << ", est " << num(k.est_us) << " us\n";
        std::vector<std::string> at, inl, per_thread, refined, per_point;
        const PointwiseParams *pw = k.get<PointwiseParams>();
        std::set<std::string> listed;  // (a Func inlined into several roots of one launch, once)
        for (auto &f : k.funcs) {
            if (f == k.root || std::find(k.with.begin(), k.with.end(), f) != k.with.end() || !listed.insert(f).second)
                continue;
            if (std::any_of(k.side.begin(), k.side.end(),
                            [&](const SideOutput &so) { return so.func == f && !so.shared; }))
                continue;
            const FuncPlan *p = find(f);
            if (reg && std::count(reg->register_members.begin(), reg->register_members.end(), f))
                per_thread.push_back(f);
            else if (tile && std::count(tile->rows_per_thread.begin(), tile->rows_per_thread.end(), f))
                per_thread.push_back(f);
            else if (tile && std::count(tile->per_point.begin(), tile->per_point.end(), f))
                per_point.push_back(f);
            else if (pw && std::count(pw->refined_members.begin(), pw->refined_members.end(), f))
                refined.push_back(f);
            else
                (p && p->placement == Placement::ComputeAtBlock ? at : inl).push_back(f);
        }
        auto names = [](const std::vector<std::string> &v, size_t most) {
            std::string s;
            for (size_t i = 0; i < v.size() && i < most; i++) s += (i ? ", " : "") + v[i];
            return v.size() > most ? s + ", ... (" + std::to_string(v.size()) + " in all)" : s;
        };
        bool by_rows = false;  // launched with an inner-outer kernel: summed by its blocks
        for (auto &h : kernels)
            by_rows = by_rows || (sk && h.kind() == TemplateKind::InnerOuter && h.root == sk->launched_with);
        if (sk && by_rows)
            o << "      split-K: " << sk->func << " summed in " << sk->slices << " slices into " << sk->partials
              << " by the blocks of " << sk->launched_with << "'s kernel (inner-outer, one read of the points)"
              << "; the root's " << k.blocks << (k.blocks == 1 ? " block adds" : " blocks add") << " the partials\n";
        else if (sk && !sk->launched_with.empty())
            o << "      split-K: " << sk->func << " summed in " << sk->slices << " slices into " << sk->partials
              << " by the launches of " << sk->launched_with << "'s partials (shared, one read of the points)"
              << "; the root's " << k.blocks << (k.blocks == 1 ? " block adds" : " blocks add") << " the partials\n";
        else if (sk)
            o << "      split-K: " << sk->func << " summed in " << sk->slices << " slices by " << sk->blocks
              << " blocks into " << sk->partials << " (2 launches: zero, sum)"
              << (sk->contraction_dy > 0
                      ? ", in contraction tiles over its dims " + std::to_string(sk->contraction_dx) + " and " +
                            std::to_string(sk->contraction_dy)
                      : std::string())
              << "; the root's " << k.blocks << (k.blocks == 1 ? " block adds" : " blocks add") << " the partials\n";
        if (io)
            o << "      column sums per block: " << names(io->column_sums, 8) << " (" << io->rows
              << " rows each: one partial per column, " << io->slices << " slices)\n";
        else if (sk && sk->group.size() > 1)
            o << "      shared split-K: the same launches sum "
              << names(std::vector<std::string>(sk->group.begin() + 1, sk->group.end()), 8)
              << " (same points, slices of " << sk->rows << " along domain dim " << sk->dim
              << (sk->vector > 1 ? ", x" + std::to_string(sk->vector) + " vectors" : std::string()) << ")\n";
        if (!at.empty()) o << "      computed per block: " << names(at, 8) << "\n";
        for (auto &s : k.staged())
            o << "      staged: " << s.func << " read once per block into shared memory (" << s.bytes_per_block
              << " bytes)" << (s.readers.empty() ? std::string() : ", then by " + names(s.readers, 4)) << "\n";
        if (!per_thread.empty())
            o << (reg && reg->register_cols > 1
                      ? "      computed per thread for its points, each step's loads shared by them: "
                      : "      computed per thread for its rows, their steps unrolled where constant: ")
              << names(per_thread, 8) << "\n";
        if (!per_point.empty())
            o << "      computed at each point of its reader, in the thread's registers: " << names(per_point, 8)
              << "\n";
        if (!refined.empty())
            o << "      computed at each thread's point, its points there unrolled: " << names(refined, 8) << "\n";
        if (!inl.empty()) o << "      inlined: " << names(inl, 8) << "\n";
    }
    if (!materialized.empty()) {
        o << "  materialized intermediates:\n";
        for (auto &m : materialized) o << "    " << m.func << " " << m.type << " " << mb_text(m.bytes) << "\n";
    }
    if (!explanations.empty()) {
        o << "  reasons (edges not fused, kernels not merged, shapes chosen):\n";
        for (auto &e : explanations)
            o << "    " << e.producer << (e.consumer.empty() ? "" : " -> " + e.consumer) << ": " << e.reason << "\n";
    }
    return o.str();
}

void drop_kernels(Plan &plan, std::vector<int> &kernel_root, const std::set<size_t> &drop) {
    std::vector<KernelPlan> kept;
    std::vector<int> kept_root;
    for (size_t i = 0; i < plan.kernels.size(); i++)
        if (!drop.count(i)) kept.push_back(plan.kernels[i]), kept_root.push_back(kernel_root[i]);
    plan.kernels = kept;
    kernel_root = kept_root;
}

}  // namespace solder::autosched
