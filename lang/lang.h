// Solder's tensor layer: include this to build ML-style graphs as pure Halide Funcs.
#pragma once
#include "core/bf16.h"
#include "lang/bf16_expr.h"
#include "lang/error.h"
#include "lang/ops.h"
#include "lang/tensor.h"
