// The tensor layer rejects bad graphs with a LangError that names the op and the problem.
#include <gtest/gtest.h>

#include "lang/lang.h"

using namespace solder;
using namespace solder::lang;

namespace {
// Runs f, expects a LangError whose message contains every fragment.
template<typename F> void expect_error(F f, std::initializer_list<std::string> fragments) {
    try {
        f();
        FAIL() << "no error thrown";
    } catch (const LangError &e) {
        std::string m = e.what();
        for (auto &frag : fragments) EXPECT_NE(m.find(frag), std::string::npos) << "message: " << m;
    }
}
}  // namespace

TEST(LangErrors, BroadcastMismatchNamesOpAndShapes) {
    Graph g;
    auto a = g.input("a", DType::F32, {2, 3});
    auto b = g.input("b", DType::F32, {4});
    expect_error([&] { add(a, b); }, {"add:", "(2,3)", "(4)", "cannot be broadcast"});
    expect_error([&] { mul(a, b); }, {"mul:"});
}

TEST(LangErrors, BadAxes) {
    Graph g;
    auto a = g.input("a", DType::F32, {2, 3});
    expect_error([&] { sum(a, {2}); }, {"sum:", "axis 2", "rank 2"});
    expect_error([&] { mean(a, {-3}); }, {"mean:", "axis -3"});
    expect_error([&] { max(a, {0, 0}); }, {"max:", "repeated"});
    expect_error([&] { sum(a, {}); }, {"sum:", "at least one axis"});
    expect_error([&] { softmax(a, 5); }, {"softmax:", "axis 5"});
    expect_error([&] { squeeze(a, 1); }, {"squeeze:", "extent 3"});
    expect_error([&] { unsqueeze(a, 4); }, {"unsqueeze:", "out of range"});
}

TEST(LangErrors, ShapeOps) {
    Graph g;
    auto a = g.input("a", DType::F32, {2, 3});
    auto c = g.input("c", DType::F32, {2, 4});
    auto i = g.input("i", DType::I32, {2, 3});
    expect_error([&] { slice(a, 1, 2, 5); }, {"slice:", "[2, 5)", "extent 3"});
    expect_error([&] { slice(a, 1, 0, 2, 0); }, {"slice:", "step"});
    expect_error([&] { select_index(a, 0, 2); }, {"select_index:", "index 2"});
    expect_error([&] { stack({a, c}, 0); }, {"stack:", "(2,4)"});
    expect_error([&] { stack({a, i}, 0); }, {"stack:", "type i32"});
    expect_error([&] { cat({a, c}, 0); }, {"cat:", "(2,4)"});
    expect_error([&] { cat({}, 0); }, {"cat:", "at least one"});
    expect_error([&] { expand(a, {2, 5}); }, {"expand:", "(2,3)", "(2,5)"});
    expect_error([&] { expand(a, {3}); }, {"expand:", "fewer axes"});
    expect_error([&] { broadcast_in_dim(a, {2, 3, 4}, {0}); }, {"broadcast_in_dim:", "rank 2"});
    expect_error([&] { broadcast_in_dim(a, {2, 3, 4}, {0, 0}); }, {"broadcast_in_dim:", "increasing"});
    expect_error([&] { broadcast_in_dim(a, {2, 4}, {0, 1}); }, {"broadcast_in_dim:", "extent 3"});
}

TEST(LangErrors, CompositesCheckOperands) {
    Graph g;
    auto x = g.input("x", DType::F32, {4, 8});
    auto w = g.input("w", DType::F32, {7});
    auto i = g.input("i", DType::I32, {4, 8});
    expect_error([&] { layer_norm(x, &w); }, {"layer_norm:", "weight", "(7)", "(8)"});
    expect_error([&] { rms_norm(x, &w); }, {"rms_norm:", "weight"});
    expect_error([&] { softmax(i); }, {"softmax:", "float", "i32"});
}

TEST(LangErrors, InputsAndGraphs) {
    Graph g, h;
    expect_error([&] { g.input("x", DType::F32, {3, 0}); }, {"input:", "non-positive", "'x'"});
    g.input("x", DType::F32, {3});
    expect_error([&] { g.input("x", DType::F32, {3}); }, {"input:", "already exists"});
    auto a = g.input("a", DType::F32, {3});
    auto b = h.input("b", DType::F32, {3});
    expect_error([&] { add(a, b); }, {"add:", "different Graphs"});
    Tensor empty;
    expect_error([&] { relu(empty); }, {"relu:", "empty Tensor"});
    expect_error([&] { div(a, 0.0); }, {"div:", "scalar 0"});
}
