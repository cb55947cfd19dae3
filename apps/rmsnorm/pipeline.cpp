#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline rmsnorm_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    Tensor xf = cast(in[0], DType::F32);
    Tensor y = cast(xf * rsqrt(mean(pow(xf, 2.0), {-1}, true) + 1e-6), DType::BF16);
    return lang_pipeline("rmsnorm", io, in, {y * in[1]});
}

}  // namespace solder
