// The user-pipeline bench's pipelines: each a function returning its outputs and arguments,
// listed by name in a registry per file (pipelines_a.cpp ... pipelines_z.cpp, pipelines_aa.cpp ... pipelines_ar.cpp); gen.cpp schedules and
// compiles them.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"

namespace user_pipelines {

// A pipeline: its outputs and its arguments in order (inputs, then scalar Params).
struct P {
    std::vector<Halide::Func> outs;
    std::vector<Halide::Argument> args;
};
using Registry = std::map<std::string, std::function<P()>>;

// Adds each file's pipelines to `r`.
void add_pipelines_a(Registry &r);
void add_pipelines_b(Registry &r);
void add_pipelines_c(Registry &r);
void add_pipelines_d(Registry &r);
void add_pipelines_e(Registry &r);
void add_pipelines_f(Registry &r);
void add_pipelines_g(Registry &r);
void add_pipelines_h(Registry &r);
void add_pipelines_i(Registry &r);
void add_pipelines_j(Registry &r);
void add_pipelines_k(Registry &r);
void add_pipelines_l(Registry &r);
void add_pipelines_m(Registry &r);
void add_pipelines_n(Registry &r);
void add_pipelines_o(Registry &r);
void add_pipelines_p(Registry &r);
void add_pipelines_q(Registry &r);
void add_pipelines_r(Registry &r);
void add_pipelines_s(Registry &r);
void add_pipelines_t(Registry &r);
void add_pipelines_u(Registry &r);
void add_pipelines_v(Registry &r);
void add_pipelines_w(Registry &r);
void add_pipelines_x(Registry &r);
void add_pipelines_y(Registry &r);
void add_pipelines_z(Registry &r);
void add_pipelines_aa(Registry &r);
void add_pipelines_ab(Registry &r);
void add_pipelines_ac(Registry &r);
void add_pipelines_ad(Registry &r);
void add_pipelines_ae(Registry &r);
void add_pipelines_af(Registry &r);
void add_pipelines_ag(Registry &r);
void add_pipelines_ah(Registry &r);
void add_pipelines_ai(Registry &r);
void add_pipelines_aj(Registry &r);
void add_pipelines_ak(Registry &r);
void add_pipelines_al(Registry &r);
void add_pipelines_am(Registry &r);
void add_pipelines_an(Registry &r);
void add_pipelines_ao(Registry &r);
void add_pipelines_ap(Registry &r);
void add_pipelines_aq(Registry &r);
void add_pipelines_ar(Registry &r);

}  // namespace user_pipelines
