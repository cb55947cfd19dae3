// SOLDER_DUMP / --dump: the words, and the content of every dump checked against what it describes
// (the plan, the launches the hooks saw, the device source), on OpenCL (PoCL) and, compiled only,
// CUDA. The CLI tests run bin/solder and bin/solder-exec as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/app_build.h"
#include "runtime/app_runner.h"
#include "runtime/build_dumps.h"
#include "runtime/device_source_split.h"
#include "runtime/dump_options.h"
#include "runtime/planned_kernels.h"
#include "runtime/run_dumps.h"
#include "autosched/model/pipeline_funcs.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/test_processes.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

// A fresh dump root per test, removed afterwards.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &tag)
        : path(fs::temp_directory_path() / ("solder-dumps-" + tag + "-" + std::to_string(getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

using solder::testing::count_of;
using solder::testing::read_file;

// The body of one printed dump, between its header and end lines ("" if absent).
std::string section(const std::string &out, const std::string &word) {
    size_t h = out.find("==== SOLDER_DUMP " + word + ":");
    if (h == std::string::npos) return "";
    size_t body = out.find('\n', h) + 1;
    size_t end = out.find("==== end " + word + " ====", body);
    return end == std::string::npos ? "" : out.substr(body, end - body);
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

std::vector<std::string> words_of(const std::string &line) {
    std::vector<std::string> v;
    std::istringstream in(line);
    for (std::string w; in >> w;) v.push_back(w);
    return v;
}

// One app built and run with dumps, in process, the way `solder run` does it.
struct DumpedRun {
    AppBuild build;
    RunReport report;
    std::string out;     // everything printed
    std::string folder;  // the run's dump folder
};

DumpedRun run_with_dumps(const std::string &app, const std::string &target, const std::string &schedule,
                         const std::set<std::string> &words, const fs::path &root, bool run = true,
                         const SolderOptions &options = {}) {
    DumpedRun d;
    std::ostringstream out;
    DumpWriter writer(DumpOptions{words, root.string()}, {app, schedule, target, "small"}, out);
    AppBuildRequest req{app, AppSize::Small, target, schedule, ""};
    req.options = options;
    BuildDumps build_dumps(writer, req);
    d.build = build_app_library(req);
    build_dumps.write(d.build);
    if (run) {
        std::string err;
        auto lib = PipelineLibrary::open(d.build.library_path, &err);
        EXPECT_TRUE(lib) << err;
        if (!lib) return d;
        RunOptions opt;
        opt.size = AppSize::Small;
        opt.iters = 3;
        opt.warmup = 0;
        opt.time_kernels = words.count("bandwidth") > 0;
        d.report = run_app(*find_app_spec(app), *lib, opt);
        EXPECT_TRUE(d.report.pass) << d.report.error;
        write_run_dumps(writer, d.report, *lib, opt.iters);
    }
    d.out = out.str();
    d.folder = writer.folder();
    return d;
}

// The rows of the launch dump: indented, starting with the launch's number.
std::vector<std::vector<std::string>> launch_rows(const std::string &launch) {
    std::vector<std::vector<std::string>> rows;
    for (auto &l : lines_of(launch)) {
        auto w = words_of(l);
        if (l.rfind("  ", 0) == 0 && !w.empty() && w[0].find_first_not_of("0123456789") == std::string::npos)
            rows.push_back(w);
    }
    return rows;
}

struct CommandResult {
    int exit_code = -1;
    std::string out;
};

CommandResult shell(const std::string &cmd) {
    CommandResult r;
    FILE *p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int st = pclose(p);
    r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

}  // namespace

TEST(DumpWords, UnknownWordIsNamedWithEveryValidWord) {
    try {
        parse_dump_words("plan, bogus", "--dump");
        FAIL() << "no error for an unknown word";
    } catch (const std::invalid_argument &e) {
        std::string m = e.what();
        EXPECT_NE(m.find("'bogus'"), std::string::npos) << m;
        EXPECT_NE(m.find("--dump"), std::string::npos) << m;
        for (auto &w : dump_words()) EXPECT_NE(m.find(w.word), std::string::npos) << w.word << " missing in: " << m;
    }
}

TEST(DumpWords, EnvironmentAndFlagAreJoined) {
    setenv("SOLDER_DUMP", " plan,,loops ", 1);
    setenv("SOLDER_DUMP_DIR", "/some/where", 1);
    DumpOptions o = dump_options_from_env_and_flag("graph,plan");
    EXPECT_EQ(o.words, (std::set<std::string>{"plan", "loops", "graph"}));
    EXPECT_EQ(o.root, "/some/where");
    setenv("SOLDER_DUMP", "launch,kernel", 1);
    try {
        dump_options_from_env_and_flag("");
        FAIL() << "no error for 'kernel'";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("SOLDER_DUMP"), std::string::npos) << e.what();
    }
    unsetenv("SOLDER_DUMP");
    unsetenv("SOLDER_DUMP_DIR");
    EXPECT_EQ(dump_options_from_env_and_flag("").root, "solder-out/dump");
}

TEST(PlannedKernels, SurviveTheInfoRecordAndClaimTheirLaunches) {
    std::vector<PlannedKernel> ks = {
        {"k0_a", {"a"}, 100, 20}, {"k1_a_s2", {"a_s2"}, 7, 8}, {"k2_h", {"h$1", "g"}, 1, 2}};
    std::vector<PlannedKernel> back = decode_planned_kernels(encode_planned_kernels(ks));
    ASSERT_EQ(back.size(), ks.size());
    for (size_t i = 0; i < ks.size(); i++) {
        EXPECT_EQ(back[i].name, ks[i].name);
        EXPECT_EQ(back[i].roots, ks[i].roots);
        EXPECT_EQ(back[i].bytes_read, ks[i].bytes_read);
        EXPECT_EQ(back[i].bytes_written, ks[i].bytes_written);
    }
    auto claim = [&](const std::string &kernel) {
        const PlannedKernel *k = planned_kernel_of_launch(ks, kernel);
        return k ? k->name : std::string("none");
    };
    EXPECT_EQ(claim("_kernel_a_s0_x_block_id_x"), "k0_a");
    EXPECT_EQ(claim("_kernel_a_s1_x_block_id_x"), "k0_a");  // an update stage is the same planned kernel
    EXPECT_EQ(claim("_kernel_a_s2_s0_x_block_id_x"), "k1_a_s2");
    EXPECT_EQ(claim("_kernel_h_1_s0_x_block_id_x"), "k2_h");   // Halide prints '$' as '_'
    EXPECT_EQ(claim("_kernel_h__1_s0_x_block_id_x"), "k2_h");  // and OpenCL's C backend as "__"
    EXPECT_EQ(claim("_kernel_g_s0_x_block_id_x"), "k2_h");
    EXPECT_EQ(claim("_kernel_ab_s0_x_block_id_x"), "none");
    EXPECT_THROW(decode_planned_kernels("k0 a 1"), std::invalid_argument);
}

// A total reduction's first launches write rfactor's partials ("<root>_intm"): the bandwidth dump
// counts them in its kernel.
TEST(PlannedKernels, ATotalReductionClaimsItsSlicesLaunches) {
    Halide::ImageParam in(Halide::Float(32), 2, "pk_in");
    Halide::RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "pk_r");
    Halide::Func total("pk_total");
    total() = Halide::Float(32).min();
    total() = Halide::max(total(), in(r.x, r.y));
    in.set_estimates({{0, 2048}, {0, 2048}});
    autosched::Plan plan = solder::testing::plan_for({total}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    ASSERT_EQ(plan.kernels[0].template_name(), "total_reduction") << plan.to_text();
    const std::string part = "pk_total";
    std::vector<PlannedKernel> ks = planned_kernels_of(plan);
    for (const std::string &launch :
         {"_kernel_" + part + "_intm_s0_slice_block_id_x", "_kernel_" + part + "_intm_s1_slice_block_id_x",
          "_kernel_" + part + "_s1___outermost_block_block_id_x"}) {
        const PlannedKernel *k = planned_kernel_of_launch(ks, launch);
        ASSERT_NE(k, nullptr) << launch;
        EXPECT_EQ(k->name, plan.kernels[0].name) << launch;
    }
}

TEST(DeviceSourceSplit, EachKernelStandsAloneWithThePreamble) {
    std::string cl =
        "#pragma OPENCL FP_CONTRACT ON\ninline float f(float x) { return x; }\n"
        "__kernel void _at_least_one_kernel(int x) { }\n"
        "// Address spaces for _kernel_p_s0\n#define A __global\n__kernel void _kernel_p_s0(int a) { }\n#undef A\n"
        "__kernel void _kernel_q_s0(\n int a) { }\n";
    auto ks = split_device_source(cl + std::string(1, '\0'), DeviceLanguage::OpenCL);
    ASSERT_EQ(ks.size(), 2u);
    EXPECT_EQ(ks[0].name, "_kernel_p_s0");
    EXPECT_EQ(ks[1].name, "_kernel_q_s0");
    for (auto &k : ks) {
        EXPECT_EQ(count_of(k.text, "__kernel void"), 1u) << k.text;
        EXPECT_NE(k.text.find("inline float f"), std::string::npos) << k.text;
        EXPECT_EQ(k.text.find('\0'), std::string::npos);
    }
    EXPECT_NE(ks[0].text.find("#define A __global"), std::string::npos) << ks[0].text;
    EXPECT_EQ(ks[1].text.find("#define A"), std::string::npos) << ks[1].text;

    std::string ptx =
        ".version 7.1\n.target sm_86\n\n\t// .globl\tk1 // -- Begin\n.visible .entry k1(\n)\n{\n ret;\n}\n"
        "\t// .globl\tk2\n.visible .entry k2(\n)\n{\n ret;\n}\n";
    auto ps = split_device_source(ptx, DeviceLanguage::PTX);
    ASSERT_EQ(ps.size(), 2u);
    for (auto &k : ps) {
        EXPECT_EQ(count_of(k.text, ".entry"), 1u) << k.text;
        EXPECT_EQ(count_of(k.text, ".globl"), 1u) << k.text;
        EXPECT_EQ(k.text.rfind(".version 7.1\n.target sm_86\n", 0), 0u) << k.text;
    }
}

TEST(Dumps, KernelFilesMatchTheLaunchedKernels) {
    TempDir root("kernels");
    // What an earlier run left in the folder must be gone, not counted with these kernels.
    fs::path stale = root.path / "nvfuser_2146__solder__opencl__small" / "kernels" / "_kernel_stale_s0.cl";
    fs::create_directories(stale.parent_path());
    std::ofstream(stale) << "__kernel void _kernel_stale_s0() {}\n";
    DumpedRun d = run_with_dumps("nvfuser_2146", "opencl", "solder", {"kernels", "launch"}, root.path);
    std::set<std::string> launched;
    for (auto &l : d.report.launches) launched.insert(l.kernel);
    ASSERT_FALSE(launched.empty());
    std::set<std::string> files;
    for (auto &f : fs::directory_iterator(fs::path(d.folder) / "kernels")) {
        files.insert(f.path().stem().string());
        EXPECT_EQ(f.path().extension(), ".cl");
        std::string text = read_file(f.path());
        EXPECT_EQ(count_of(text, "__kernel void "), 1u) << f.path();
        EXPECT_NE(text.find("__kernel void " + f.path().stem().string() + "("), std::string::npos) << f.path();
    }
    EXPECT_EQ(files, launched);
}

TEST(Dumps, LaunchesAreThePlannedKernels) {
    TempDir root("launch");
    DumpedRun d = run_with_dumps("nvfuser_2146", "opencl", "solder", {"launch"}, root.path);
    ASSERT_TRUE(d.build.plan);
    auto rows = launch_rows(section(d.out, "launch"));
    ASSERT_EQ(rows.size(), d.build.plan->kernels.size()) << d.out;
    EXPECT_EQ(int64_t(rows.size()), d.report.launches_per_run);
    for (size_t i = 0; i < rows.size(); i++) {
        // #, kernel, plan kernel, grid, block, threads, shared
        ASSERT_EQ(rows[i].size(), 7u) << d.out;
        EXPECT_EQ(rows[i][1], d.report.launches[i].kernel);
        EXPECT_EQ(rows[i][2], d.build.plan->kernels[i].name) << d.out;
        EXPECT_GT(std::stoll(rows[i][5]), 0);
        // Funcs computed per block live in local memory, which the hooks see passed to clSetKernelArg.
        bool per_block = false;
        for (auto &f : d.build.plan->kernels[i].funcs)
            per_block |=
                d.build.plan->find(f) && d.build.plan->find(f)->placement == autosched::Placement::ComputeAtBlock;
        if (per_block) {
            EXPECT_GT(std::stoll(rows[i][6]), 1) << d.out;
        }
    }
    EXPECT_EQ(read_file(fs::path(d.folder) / "launch.txt"), section(d.out, "launch"));
}

TEST(Dumps, BandwidthTimesEveryPlannedKernelOnOpenCL) {
    TempDir root("bandwidth");
    // rmsnorm with compute_at off: two planned kernels, the first launched as two (init and update).
    SolderOptions no_compute_at;
    no_compute_at.disable("compute_at");
    DumpedRun d =
        run_with_dumps("rmsnorm", "opencl", "solder", {"bandwidth", "launch"}, root.path, true, no_compute_at);
    ASSERT_TRUE(d.build.plan);
    // No Func is computed per block of another's kernel, so no kernel asks for local memory (Halide
    // passes 1 byte at most) but a block reduction, for its lanes' partials (its squares inlined).
    auto rows = launch_rows(section(d.out, "launch"));
    ASSERT_EQ(int64_t(rows.size()), d.report.launches_per_run) << d.out;
    int block_reductions = 0;
    for (auto &r : rows) {
        const autosched::KernelPlan *k = nullptr;
        for (auto &kp : d.build.plan->kernels)
            if (kp.name == r[2]) k = &kp;
        ASSERT_TRUE(k) << r[2] << "\n" << d.out;
        if (k->kind() == autosched::TemplateKind::BlockReduction) {
            block_reductions++;
            EXPECT_GT(std::stoll(r.back()), 1) << d.out;
        } else {
            EXPECT_LE(std::stoll(r.back()), 1) << d.out;
        }
    }
    EXPECT_GT(block_reductions, 0) << d.out;
    ASSERT_EQ(d.report.launch_us.size(), d.report.launches.size());
    for (double us : d.report.launch_us) EXPECT_GT(us, 0);
    std::string bw = section(d.out, "bandwidth");
    int launches = 0;
    for (auto &k : d.build.plan->kernels) {
        bool found = false;
        for (auto &l : lines_of(bw)) {
            auto w = words_of(l);
            if (w.empty() || w[0] != k.name) continue;
            found = true;
            launches += std::stoi(w[1]);
            EXPECT_GT(std::stod(w[2]), 0) << l;
        }
        EXPECT_TRUE(found) << k.name << " missing in\n" << bw;
    }
    EXPECT_EQ(launches, d.report.launches_per_run) << bw;
    EXPECT_NE(bw.find("pipeline: minimum bytes"), std::string::npos) << bw;
}

TEST(Dumps, LoopsAndPlanNameEveryRootFunc) {
    TempDir root("loops");
    DumpedRun d =
        run_with_dumps("nvfuser_2146", "opencl", "solder", {"loops", "plan", "explain", "schedule"}, root.path, false);
    ASSERT_TRUE(d.build.plan);
    std::string loops = section(d.out, "loops"), plan = section(d.out, "plan");
    for (auto &k : d.build.plan->kernels) {
        // Halide's loop nest prints a Func made unique in the process (`cast_23$2`, when an
        // earlier test in this process built the app) by its base name.
        const std::string base = k.root.substr(0, k.root.find('$'));
        EXPECT_NE(loops.find("produce " + base + ":"), std::string::npos) << k.root << " missing in\n" << loops;
        EXPECT_NE(plan.find("kernel " + k.name + ":"), std::string::npos) << plan;
    }
    // Every Func of every kernel is listed with its placement, none elided.
    size_t listed = 0;
    for (auto &k : d.build.plan->kernels) listed += k.funcs.size();
    size_t rows = 0;
    for (auto &l : lines_of(plan))
        rows += l.find(": written to global memory") != std::string::npos ||
                l.find(": computed per block") != std::string::npos ||
                l.find("inline: recomputed") != std::string::npos;
    EXPECT_EQ(rows, listed) << plan;
    std::string explain = section(d.out, "explain");
    ASSERT_FALSE(d.build.plan->explanations.empty());
    for (auto &e : d.build.plan->explanations)
        EXPECT_NE(explain.find(": " + e.reason + "\n"), std::string::npos) << explain;
    EXPECT_EQ(section(d.out, "schedule"),
              d.build.schedule_source + (d.build.schedule_source.back() == '\n' ? "" : "\n"));
}

TEST(Dumps, GraphHasOneClusterPerKernelAndMarksMaterializedTensors) {
    TempDir root("graph");
    SolderOptions no_compute_at;
    no_compute_at.disable("compute_at");
    DumpedRun d = run_with_dumps("rmsnorm", "opencl", "solder", {"graph", "explain"}, root.path, false, no_compute_at);
    ASSERT_TRUE(d.build.plan);
    ASSERT_FALSE(d.build.plan->materialized.empty()) << "with compute_at off, rmsnorm materializes its mean";
    std::string dot = read_file(fs::path(d.folder) / "graph.dot");
    EXPECT_EQ(count_of(dot, "subgraph \"cluster_"), d.build.plan->kernels.size()) << dot;
    for (auto &k : d.build.plan->kernels) EXPECT_NE(dot.find("\"cluster_" + k.name + "\""), std::string::npos);
    EXPECT_EQ(count_of(dot, "class=\"materialized\""), d.build.plan->materialized.size()) << dot;
    for (auto &m : d.build.plan->materialized)
        EXPECT_NE(dot.find("[label=\"" + m.func + "\\n"), std::string::npos) << m.func << "\n" << dot;
    const AppSpec *app = find_app_spec("rmsnorm");
    AppIO io = app->io(AppSize::Small);
    EXPECT_EQ(count_of(dot, "class=\"input\""), io.inputs.size()) << dot;
    EXPECT_EQ(count_of(dot, "class=\"output\""), io.outputs.size()) << dot;
    // The explain dump names the fusion that was not made, which is why the tensor is materialized.
    EXPECT_NE(section(d.out, "explain").find(d.build.plan->materialized[0].func), std::string::npos);
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        std::string svg = read_file(fs::path(d.folder) / "graph.svg");
        EXPECT_NE(svg.find("<svg"), std::string::npos);
        EXPECT_EQ(count_of(svg, ">materialized (global memory)</text>"), d.build.plan->materialized.size()) << svg;
    }
}

TEST(Dumps, OtherSchedulesSayThereIsNoPlanAndListRootFuncs) {
    TempDir root("unfused");
    DumpedRun d = run_with_dumps("add_relu", "opencl", "unfused", {"plan", "explain", "graph"}, root.path, false);
    EXPECT_FALSE(d.build.plan);
    std::string plan = section(d.out, "plan");
    EXPECT_NE(plan.find("no Solder plan"), std::string::npos) << plan;
    int roots = 0;
    for (auto &f : pipeline_functions(d.build.outputs))
        if (is_computed_at_root(f)) {
            roots++;
            EXPECT_NE(plan.find("  " + f.name() + "\n"), std::string::npos) << f.name() << "\n" << plan;
        }
    EXPECT_EQ(roots, d.build.loop_nests);
    EXPECT_NE(section(d.out, "explain").find("no Solder plan"), std::string::npos);
    std::string dot = read_file(fs::path(d.folder) / "graph.dot");
    EXPECT_EQ(count_of(dot, "subgraph"), 0u) << dot;
    EXPECT_EQ(int(count_of(dot, "class=\"root\"") + count_of(dot, "class=\"output\"")), roots) << dot;
}

TEST(Dumps, CudaKernelsArePtxOneEntryEach) {
    // Compiling for CUDA needs no GPU: the PTX comes from LLVM here.
    TempDir root("cuda");
    DumpedRun d = run_with_dumps("nvfuser_2146", "cuda", "solder", {"kernels"}, root.path, false);
    std::string all = read_file(fs::path(d.build.library_path).replace_extension(".kernels.ptx"));
    size_t entries = count_of(all, ".entry ");
    ASSERT_GT(entries, 0u);
    size_t files = 0;
    for (auto &f : fs::directory_iterator(fs::path(d.folder) / "kernels")) {
        files++;
        EXPECT_EQ(f.path().extension(), ".ptx");
        std::string text = read_file(f.path());
        EXPECT_EQ(count_of(text, ".entry "), 1u) << f.path();
        EXPECT_NE(text.find(".entry " + f.path().stem().string() + "("), std::string::npos) << f.path();
        EXPECT_NE(text.find(".target sm_"), std::string::npos) << f.path();
    }
    EXPECT_EQ(files, entries);
}

TEST(DumpsCli, SolderRunPrintsEveryDumpAndRejectsUnknownWords) {
    TempDir root("cli");
    std::string env =
        "SOLDER_DUMP_DIR='" + root.path.string() + "' SOLDER_DUMP=plan,explain,schedule,kernels,launch,graph ";
    CommandResult r =
        shell(env + "'" SOLDER_CLI "' run nvfuser_2146 --target opencl --small --schedule solder --iters 2");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    for (std::string w : {"plan", "explain", "schedule", "kernels", "launch", "graph"}) {
        EXPECT_EQ(count_of(r.out, "==== SOLDER_DUMP " + w + ":"), 1u) << w << "\n" << r.out;
        EXPECT_FALSE(section(r.out, w).empty()) << w;
        EXPECT_TRUE(fs::exists(root.path / "nvfuser_2146__solder__opencl__small" / (w + ".txt"))) << w;
    }
    EXPECT_TRUE(fs::exists(root.path / "nvfuser_2146__solder__opencl__small" / "graph.dot"));

    CommandResult bad = shell("'" SOLDER_CLI "' run add_relu --small --dump plan,nope");
    EXPECT_EQ(bad.exit_code, 2) << bad.out;
    EXPECT_NE(bad.out.find("'nope'"), std::string::npos) << bad.out;
    for (auto &w : dump_words()) EXPECT_NE(bad.out.find(w.word), std::string::npos) << bad.out;
}

TEST(DumpsCli, SolderExecMakesTheRunDumpsFromTheLibraryAlone) {
    TempDir root("exec");
    AppBuild b = build_app_library({"nvfuser_2146", AppSize::Small, "opencl", "solder", root.path.string()});
    ASSERT_TRUE(b.plan);
    std::string env = "SOLDER_DUMP_DIR='" + root.path.string() + "' ";
    CommandResult r = shell(env + "'" SOLDER_EXEC "' '" + b.library_path + "' --iters 3 --dump launch,bandwidth,plan");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("no 'plan' dump here"), std::string::npos) << r.out;
    auto rows = launch_rows(section(r.out, "launch"));
    EXPECT_EQ(rows.size(), b.plan->kernels.size()) << r.out;
    // The bytes came through the library's info record: each planned kernel's row has them.
    std::string bw = section(r.out, "bandwidth");
    for (auto &k : b.plan->kernels) {
        bool found = false;
        for (auto &l : lines_of(bw)) {
            auto w = words_of(l);
            if (w.size() < 8 || w[0] != k.name) continue;
            found = true;
            EXPECT_GT(std::stod(w[2]), 0) << l;
            EXPECT_NE(w[3], "-") << l;
        }
        EXPECT_TRUE(found) << k.name << " missing in\n" << bw;
    }
}
