# The ML suite apps (apps/swiglu_fwd ... apps/layernorm_bwd), apps/matmul, apps/image_stats and apps/channels_last in PyTorch at their full shapes and
# dtypes, timed eager and under torch.compile with triton.testing.do_bench (warmup 25, rep 100,
# median). Prints one JSON line per app: name, min_bytes (every input read once plus every output
# written once, as AppSpec::min_bytes), eager_us, compile_us. Run on the GPU machine:
#   python3 bench/torch_suite.py [APP ...]     (the named apps only; all without names)
import json
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

dev, f32 = "cuda", torch.float32
torch.manual_seed(0)


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


def bench(name, fn, args):
    if len(sys.argv) > 1 and name not in sys.argv[1:]:
        return
    outs = fn(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    row = {"name": name, "min_bytes": nbytes(args) + nbytes(outs)}
    for mode, f in (("eager", fn), ("compile", torch.compile(fn))):
        try:
            f(*args)
            torch.cuda.synchronize()
            row[mode + "_us"] = round(do_bench(lambda: f(*args), warmup=25, rep=100, return_mode="median") * 1e3, 1)
        except Exception as e:  # report and go on to the next mode
            row[mode + "_err"] = repr(e)[:200]
    print(json.dumps(row), flush=True)
    torch._dynamo.reset()


def randn(*shape, scale=1.0):
    return torch.randn(*shape, device=dev, dtype=f32) * scale


# 1. swiglu_fwd: x [T, 2H] -> silu(gate) * up, [T, H].
T, H = 8192, 4096
def swiglu_fwd(x):
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up
bench("swiglu_fwd", swiglu_fwd, [randn(T, 2 * H)])

# 2. swiglu_bwd: gate, up, dy [T, H] -> dgate, dup.
def swiglu_bwd(gate, up, dy):
    s = torch.sigmoid(gate)
    return dy * up * s * (1 + gate * (1 - s)), dy * gate * s
bench("swiglu_bwd", swiglu_bwd, [randn(T, H), randn(T, H), randn(T, H)])

# 3. group_norm: x [32, 256, 64, 64], 32 groups, gamma/beta [256], eps 1e-5.
def group_norm(x, gamma, beta):
    return F.group_norm(x, 32, gamma, beta, eps=1e-5)
bench("group_norm", group_norm, [randn(32, 256, 64, 64), randn(256), randn(256)])

# 4. causal_softmax: scores [16, 2048, 2048] * 0.125, keys after the query masked to -inf.
S = 2048
def causal_softmax(scores):
    q = torch.arange(S, device=dev)
    mask = q[None, :] > q[:, None]
    return (scores * 0.125).masked_fill(mask, float("-inf")).softmax(dim=-1)
bench("causal_softmax", causal_softmax, [randn(16, S, S, scale=8.0)])

# 5. int8_quant / int8_dequant: per-row symmetric int8, [8192, 4096].
R, C = 8192, 4096
def int8_quant(x):
    scale = x.abs().amax(dim=-1).clamp_min(1e-8) / 127
    q = torch.round(x / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale
bench("int8_quant", int8_quant, [randn(R, C)])
def int8_dequant(q, scale):
    return q.to(f32) * scale[:, None]
bench("int8_dequant", int8_dequant,
      [torch.randint(-127, 128, (R, C), device=dev, dtype=torch.int8), torch.rand(R, device=dev) * 0.05])

# 6. embedding_gather: tokens int32 [8, 2048], table [32000, 1024], pos [2048, 1024].
V, D, B, TT = 32000, 1024, 8, 2048
def embedding_gather(tokens, table, pos):
    return F.embedding(tokens, table) + pos
bench("embedding_gather", embedding_gather,
      [torch.randint(0, V, (B, TT), device=dev, dtype=torch.int32), randn(V, D), randn(TT, D, scale=0.1)])

# 7. layernorm_bwd: x, dy [8192, 4096], gamma [4096] -> dx, dgamma, dbeta; mean and rstd recomputed.
def layernorm_bwd(x, dy, gamma):
    mean = x.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(x.var(dim=-1, unbiased=False, keepdim=True) + 1e-5)
    xhat = (x - mean) * rstd
    g = dy * gamma
    dx = rstd * (g - g.mean(dim=-1, keepdim=True) - xhat * (g * xhat).mean(dim=-1, keepdim=True))
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)
bench("layernorm_bwd", layernorm_bwd, [randn(R, C), randn(R, C), randn(C)])

# 8. matmul: a [2048, 1024] @ b [1024, 2048] in f32 (cuBLAS; TF32 off, as PyTorch's default).
torch.backends.cuda.matmul.allow_tf32 = False
def matmul(a, b):
    return a @ b
bench("matmul", matmul, [randn(2048, 1024), randn(1024, 2048)])

# 9. image_stats: x [4096, 4096] standardized by its mean and (biased) variance over every element.
def image_stats(x):
    m = x.mean()
    v = ((x - m) * (x - m)).mean()
    return (x - m) / torch.sqrt(v + 1e-5)
bench("image_stats", image_stats, [randn(4096, 4096)])

# 10. channels_last: x [32, 128, 56, 56] scaled and shifted per channel, written [32, 56, 56, 128].
def channels_last(x, scale, shift):
    return (x * scale[:, None, None] + shift[:, None, None]).permute(0, 2, 3, 1).contiguous()
bench("channels_last", channels_last, [randn(32, 128, 56, 56), torch.rand(128, device=dev) + 0.5, randn(128)])
