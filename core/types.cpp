#include "core/types.h"

#include <sstream>

namespace solder {

const char *dtype_name(DType t) {
    switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::BF16: return "bf16";
    case DType::U8: return "u8";
    case DType::U16: return "u16";
    case DType::I8: return "i8";
    case DType::I16: return "i16";
    case DType::F64: return "f64";
    }
    return "?";
}

int dtype_bytes(DType t) {
    switch (t) {
    case DType::F32:
    case DType::I32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I64:
    case DType::F64: return 8;
    case DType::U16:
    case DType::I16: return 2;
    case DType::U8:
    case DType::I8: return 1;
    }
    return 0;
}

bool dtype_is_float(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64; }

halide_type_t dtype_halide_type(DType t) {
    switch (t) {
    case DType::F32: return halide_type_t(halide_type_float, 32);
    case DType::F16: return halide_type_t(halide_type_float, 16);
    case DType::I32: return halide_type_t(halide_type_int, 32);
    case DType::I64: return halide_type_t(halide_type_int, 64);
    case DType::BF16: return halide_type_t(halide_type_uint, 16);
    case DType::U8: return halide_type_t(halide_type_uint, 8);
    case DType::U16: return halide_type_t(halide_type_uint, 16);
    case DType::I8: return halide_type_t(halide_type_int, 8);
    case DType::I16: return halide_type_t(halide_type_int, 16);
    case DType::F64: return halide_type_t(halide_type_float, 64);
    }
    return halide_type_t();
}

std::string shape_str(const Shape &s) {
    std::ostringstream o;
    o << "(";
    for (size_t i = 0; i < s.size(); i++) o << (i ? "," : "") << s[i];
    o << ")";
    return o.str();
}

int64_t shape_numel(const Shape &s) {
    int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

}  // namespace solder
