#include "runtime/planned_kernels.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace solder {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) out.push_back(cur);
    return out;
}

// How a Func name appears in its kernels' names: every other character becomes '_' (PTX), or '$'
// (Halide's suffix for a name made unique, "cast_23$1") becomes "__" (the OpenCL C backend).
std::string as_kernel_name_part(const std::string &func, const char *dollar = "_") {
    std::string s;
    for (char c : func) {
        if (c == '$')
            s += dollar;
        else
            s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    return s;
}

}  // namespace

std::vector<PlannedKernel> planned_kernels_of(const autosched::Plan &plan) {
    std::vector<PlannedKernel> ks;
    for (auto &k : plan.kernels) {
        PlannedKernel p{k.name, {k.root}, k.bytes_read, k.bytes_written};
        p.roots.insert(p.roots.end(), k.with.begin(), k.with.end());
        if (k.split) p.roots.push_back(k.split->partials);  // split-K's first launch
        // A total reduction's slices: their partials, rfactor's intermediate (schedules/total_reduction).
        if (k.kind() == autosched::TemplateKind::TotalReduction) p.roots.push_back(k.root + "_intm");
        // A copy its readers read, laid out as the kernel (a point scan per tile, a reduction in
        // each thread's registers): Halide names its launch after the copy.
        p.roots.push_back(k.root + "_global_wrapper$0");
        ks.push_back(p);
    }
    return ks;
}

std::string encode_planned_kernels(const std::vector<PlannedKernel> &ks) {
    std::string o;
    for (auto &k : ks) {
        std::string roots;
        for (auto &r : k.roots) roots += (roots.empty() ? "" : ",") + r;
        o += (o.empty() ? "" : ";") + k.name + " " + roots + " " + std::to_string(k.bytes_read) + " " +
             std::to_string(k.bytes_written);
    }
    return o;
}

std::vector<PlannedKernel> decode_planned_kernels(const std::string &text) {
    std::vector<PlannedKernel> ks;
    for (auto &entry : split(text, ';')) {
        std::vector<std::string> f = split(entry, ' ');
        PlannedKernel k;
        try {
            if (f.size() != 4) throw std::invalid_argument("4 fields");
            k.name = f[0];
            k.roots = split(f[1], ',');
            k.bytes_read = std::stoll(f[2]);
            k.bytes_written = std::stoll(f[3]);
        } catch (const std::exception &) {
            throw std::invalid_argument("malformed plan_kernels entry '" + entry +
                                        "' (expected: name root[,root...] bytes_read bytes_written)");
        }
        ks.push_back(k);
    }
    return ks;
}

const PlannedKernel *planned_kernel_of_launch(const std::vector<PlannedKernel> &ks, const std::string &kernel_name) {
    const PlannedKernel *best = nullptr;
    size_t best_len = 0;
    for (auto &k : ks)
        for (auto &r : k.roots)
            for (const char *dollar : {"_", "__"}) {
                std::string key = "_kernel_" + as_kernel_name_part(r, dollar) + "_s";
                size_t at = kernel_name.find(key);
                if (at == std::string::npos) continue;
                size_t after = at + key.size();
                if (after >= kernel_name.size() || !std::isdigit(static_cast<unsigned char>(kernel_name[after])))
                    continue;
                if (r.size() > best_len) best = &k, best_len = r.size();
            }
    return best;
}

}  // namespace solder
