#include "apps/app_spec.h"

#include <sstream>

#include "apps/ref_util.h"

namespace solder {

HostBuffer make_host_buffer(const TensorSpec &t) {
    std::vector<int> sizes(t.shape.rbegin(), t.shape.rend());
    return HostBuffer(dtype_halide_type(t.dtype), sizes);
}

int64_t AppSpec::min_bytes(AppSize size) const {
    AppIO x = io(size);
    int64_t b = 0;
    for (auto &t : x.inputs) b += t.bytes();
    for (auto &t : x.outputs) b += t.bytes();
    return b;
}

std::string AppSpec::shapes_str(AppSize size) const {
    AppIO x = io(size);
    std::ostringstream o;
    for (size_t i = 0; i < x.inputs.size(); i++)
        o << (i ? " " : "") << x.inputs[i].name << ":" << dtype_name(x.inputs[i].dtype) << shape_str(x.inputs[i].shape);
    for (auto &s : x.scalars) o << " " << s.name << ":" << dtype_name(s.dtype) << "=" << s.value;
    o << " ->";
    for (auto &t : x.outputs) o << " " << t.name << ":" << dtype_name(t.dtype) << shape_str(t.shape);
    return o.str();
}

const AppSpec *find_app_spec(const std::string &name) {
    for (auto &a : all_app_specs())
        if (a.name == name) return &a;
    return nullptr;
}

std::string app_names_joined() {
    std::string s;
    for (auto &a : all_app_specs()) s += (s.empty() ? "" : ", ") + a.name;
    return s;
}

void fill_normal(HostBuffer &b, DType t, uint64_t seed, double scale) {
    Rng r(seed);
    for (int64_t i = 0, n = numel(b); i < n; i++) store_from_double(b, t, i, scale * r.normal());
}

void fill_uniform(HostBuffer &b, DType t, uint64_t seed, double lo, double hi) {
    Rng r(seed);
    for (int64_t i = 0, n = numel(b); i < n; i++) {
        if (dtype_is_float(t))
            store_from_double(b, t, i, r.uniform(lo, hi));
        else
            store_from_double(b, t, i, double(r.integer(int64_t(lo), int64_t(hi))));
    }
}

double load_as_double(const HostBuffer &b, DType t, int64_t i) {
    switch (t) {
    case DType::F32: return data_as<float>(b)[i];
    case DType::F16: return double(data_as<_Float16>(b)[i]);
    case DType::I32: return data_as<int32_t>(b)[i];
    case DType::I64: return double(data_as<int64_t>(b)[i]);
    case DType::BF16: return bf16_bits_to_f32(data_as<uint16_t>(b)[i]);
    case DType::U8: return data_as<uint8_t>(b)[i];
    case DType::U16: return data_as<uint16_t>(b)[i];
    case DType::I8: return data_as<int8_t>(b)[i];
    case DType::I16: return data_as<int16_t>(b)[i];
    case DType::F64: return data_as<double>(b)[i];
    }
    return 0;
}

void store_from_double(HostBuffer &b, DType t, int64_t i, double v) {
    switch (t) {
    case DType::F32: data_as<float>(b)[i] = float(v); break;
    case DType::F16: data_as<_Float16>(b)[i] = _Float16(float(v)); break;
    case DType::I32: data_as<int32_t>(b)[i] = int32_t(v); break;
    case DType::I64: data_as<int64_t>(b)[i] = int64_t(v); break;
    case DType::BF16: data_as<uint16_t>(b)[i] = f32_to_bf16_bits(float(v)); break;
    case DType::U8: data_as<uint8_t>(b)[i] = uint8_t(v); break;
    case DType::U16: data_as<uint16_t>(b)[i] = uint16_t(v); break;
    case DType::I8: data_as<int8_t>(b)[i] = int8_t(v); break;
    case DType::I16: data_as<int16_t>(b)[i] = int16_t(v); break;
    case DType::F64: data_as<double>(b)[i] = v; break;
    }
}

}  // namespace solder
