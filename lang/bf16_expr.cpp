#include "lang/bf16_expr.h"

namespace solder::lang {
using namespace Halide;

Expr bf16_to_f32(const Expr &bits) { return reinterpret<float>(cast<uint32_t>(bits) << Expr(uint32_t(16))); }

Expr f32_to_bf16(const Expr &f) {
    Expr u = reinterpret<uint32_t>(f);
    Expr is_nan = (u & Expr(uint32_t(0x7fffffffu))) > Expr(uint32_t(0x7f800000u));
    Expr rounded =
        (u + Expr(uint32_t(0x7fffu)) + ((u >> Expr(uint32_t(16))) & Expr(uint32_t(1)))) >> Expr(uint32_t(16));
    return cast<uint16_t>(select(is_nan, (u >> Expr(uint32_t(16))) | Expr(uint32_t(0x40)), rounded));
}

}  // namespace solder::lang
