#!/bin/sh
# gpu-llama.sh [OUTDIR] [SHAPE] [CONFIG...]: the Llama decode experiment of docs/gpu-ptx.md. One
# decoder layer of workloads/gpu/llama/llama.cu at one decode step, eager (14 kernels) and fused
# (7), at a shape:
#   small  the shipped workloads/gpu/llama launches: hidden 512, 8 + 2 heads, MLP 1,792, cache 256
#   8b     Llama 3.1 8B's layer (workloads/dataflow/decoder.yaml's): hidden 4,096, 32 query and 8
#          key/value heads of 128, MLP 14,336, the token at position 4,095 of a 4,096-entry cache
#          (the attention in 16 splits of 256 positions); 436 MB of weights (about 70 s and 2.5 GB
#          a run here)
# on each GPU config (default a100 and h100-sxm), every output checked by build/tools/gpu_ref;
# writes a CSV: time on the GPU alone and with the launches, DRAM bytes, the bandwidth reached and
# its share of the config's peak (channels x bus width x data rate); and each run's kernels.csv
# rows, config and variant first, into a second one.
#   sh tools/gpu-llama.sh docs/experiments 8b    -> docs/experiments/gpu-llama-8b.csv, -kernels.csv
set -eu
OUT=${1:-docs/experiments}
SHAPE=${2:-small}
if [ $# -gt 2 ]; then shift 2; else set --; fi
CONFIGS=${*:-configs/gpu/a100.yaml configs/gpu/h100-sxm.yaml}
A=./archsim
R=build/tools/gpu_ref
[ -x "$A" ] && [ -x "$R" ] || { echo "gpu-llama.sh: build archsim and build/tools/gpu_ref first (make)" >&2; exit 66; }
case $SHAPE in small|8b) ;; *) echo "gpu-llama.sh: SHAPE is small or 8b, not '$SHAPE'" >&2; exit 64 ;; esac
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ "$SHAPE" = small ]; then
    cp workloads/gpu/llama/eager/launch.yaml "$T/eager.yaml"
    cp workloads/gpu/llama/fused/launch.yaml "$T/fused.yaml"
    sed -i "s|^kernel: ../llama.ptx|kernel: $PWD/workloads/gpu/llama/llama.ptx|" "$T/eager.yaml" "$T/fused.yaml"
else
    # the shipped launches' kernels and buffers at Llama 3 8B's widths
    python3 - "$T" "$PWD/workloads/gpu/llama/llama.ptx" <<'PY'
import math, sys
t, ptx = sys.argv[1], sys.argv[2]
n, nh, kvh, hd, f, ctx = 4096, 32, 8, 128, 14336, 4096
pos, qr = ctx - 1, (nh + 2 * kvh) * hd
splits, chunk = 16, 256                     # the attention split over the cache (Flash-Decoding)
a = lambda fan: f"{math.sqrt(3 / fan):.4f}"
common = f"""kernel: {ptx}
buffers:
  x:      {{dtype: f32,  count: {n}, init: random:1:-1:1}}
  w_attn: {{dtype: bf16, count: {n}, init: random:2:0.5:1.5}}
  w_ffn:  {{dtype: bf16, count: {n}, init: random:3:0.5:1.5}}
  Wqkv:   {{dtype: bf16, count: {qr * n}, init: random:4:-{a(n)}:{a(n)}}}
  Wo:     {{dtype: bf16, count: {n * n}, init: random:5:-{a(n)}:{a(n)}}}
  Wg:     {{dtype: bf16, count: {f * n}, init: random:6:-{a(n)}:{a(n)}}}
  Wu:     {{dtype: bf16, count: {f * n}, init: random:7:-{a(n)}:{a(n)}}}
  Wd:     {{dtype: bf16, count: {f * n}, init: random:8:-{a(f)}:{a(f)}}}
  Kc:     {{dtype: bf16, count: {kvh * ctx * hd}, init: random:9:-1:1}}
  Vc:     {{dtype: bf16, count: {kvh * ctx * hd}, init: random:10:-1:1}}
  qkv:    {{dtype: f32,  count: {qr}}}
  att:    {{dtype: f32,  count: {n}}}
  po:     {{dtype: f32,  count: {nh * splits * hd}}}
  pml:    {{dtype: f32,  count: {nh * splits * 2}}}
  h:      {{dtype: f32,  count: {f}}}
"""
att = (f"  - {{entry: llama_attention, grid: [{nh}, {splits}], block: [256], shared: {chunk * 4}, "
       f"params: [qkv, Kc, Vc, po, pml, {nh}, {kvh}, {hd}, {ctx}, {pos + 1}, {chunk}, "
       f"{1 / math.sqrt(hd):.9g}]}}\n"
       f"  - {{entry: llama_attention_combine, grid: [{nh}], block: [{hd}], "
       f"params: [po, pml, att, {hd}, {splits}]}}\n")
eager = common + f"""  xn:     {{dtype: f32,  count: {n}}}
  d:      {{dtype: f32,  count: {n}}}
  g:      {{dtype: f32,  count: {f}}}
  u:      {{dtype: f32,  count: {f}}}
launches:
  - {{entry: llama_rmsnorm, grid: [1], block: [256], params: [x, w_attn, xn, {n}, 1.0e-5]}}
  - {{entry: llama_gemv, grid: [{qr // 8}], block: [256], params: [Wqkv, xn, qkv, {qr}, {n}]}}
  - {{entry: llama_rope, grid: [{((nh + kvh) * hd // 2 + 255) // 256}], block: [256], params: [qkv, {nh + kvh}, {hd}, {pos}, 500000.0]}}
  - {{entry: llama_kv_append, grid: [{kvh * hd // 128}], block: [128], params: [qkv, Kc, Vc, {nh}, {kvh}, {hd}, {ctx}, {pos}]}}
{att}  - {{entry: llama_gemv, grid: [{n // 8}], block: [256], params: [Wo, att, d, {n}, {n}]}}
  - {{entry: llama_add, grid: [{n // 256}], block: [256], params: [x, d, {n}]}}
  - {{entry: llama_rmsnorm, grid: [1], block: [256], params: [x, w_ffn, xn, {n}, 1.0e-5]}}
  - {{entry: llama_gemv, grid: [{f // 8}], block: [256], params: [Wg, xn, g, {f}, {n}]}}
  - {{entry: llama_gemv, grid: [{f // 8}], block: [256], params: [Wu, xn, u, {f}, {n}]}}
  - {{entry: llama_silu_mul, grid: [{f // 256}], block: [256], params: [g, u, h, {f}]}}
  - {{entry: llama_gemv, grid: [{n // 8}], block: [256], params: [Wd, h, d, {n}, {f}]}}
  - {{entry: llama_add, grid: [{n // 256}], block: [256], params: [x, d, {n}]}}
outputs: [x, Kc, Vc]
"""
fused = common + f"""launches:
  - {{entry: llama_norm_gemv, grid: [{qr // 8}], block: [256], shared: {n * 4}, params: [x, w_attn, Wqkv, qkv, {qr}, {n}, 1.0e-5]}}
  - {{entry: llama_rope_kv, grid: [{((nh + kvh) * hd // 2 + 255) // 256}], block: [256], params: [qkv, Kc, Vc, {nh}, {kvh}, {hd}, {ctx}, {pos}, 500000.0]}}
{att}  - {{entry: llama_gemv_add, grid: [{n // 8}], block: [256], params: [Wo, att, x, {n}, {n}]}}
  - {{entry: llama_norm_swiglu, grid: [{f // 8}], block: [256], shared: {n * 4}, params: [x, w_ffn, Wg, Wu, h, {f}, {n}, 1.0e-5]}}
  - {{entry: llama_gemv_add, grid: [{n // 8}], block: [256], params: [Wd, h, x, {n}, {f}]}}
outputs: [x, Kc, Vc]
"""
open(f"{t}/eager.yaml", "w").write(eager)
open(f"{t}/fused.yaml", "w").write(fused)
PY
fi
CSV="$OUT/gpu-llama-$SHAPE.csv"
: > "$T/kcsv"
echo "config,variant,kernels,gpu_sim_cycle,launch_latency_cycles,gpu_us,token_us,dram_read_bytes,gpu_GBps,token_GBps,peak_GBps,gpu_share,token_share" > "$T/csv"
for c in $CONFIGS; do
    for v in eager fused; do
        r="$T/$(basename "$c" .yaml)-$v"
        "$A" gpu run "$T/$v.yaml" --machine "$c" -q -o "$r" > /dev/null
        "$R" "$T/$v.yaml" "$r" > "$r.ref" || { cat "$r.ref"; echo "gpu-llama.sh: $c $v: the outputs differ from the reference" >&2; exit 1; }
        [ -s "$T/kcsv" ] || echo "config,variant,$(sed -n 1p "$r/kernels.csv")" > "$T/kcsv"
        sed 1d "$r/kernels.csv" | sed "s/^/$(basename "$c" .yaml),$v,/" >> "$T/kcsv"
        python3 - "$r" "$(basename "$c" .yaml)" "$v" >> "$T/csv" <<'PY'
import json, re, sys
r, cfg, var = sys.argv[1:4]
d = json.load(open(f"{r}/stats.json"))
conf = open(f"{r}/config.resolved.yaml").read()
def size(key):            # the memory side's "channels: 40", "bus_width: 16B", "data_rate: 2.43GHz"
    v = re.search(rf"^[ \t]*{key}:[ \t]*([0-9.]+)[ \t]*([A-Za-z]*)", conf, re.M)
    return float(v.group(1)) * {"": 1, "B": 1, "MHz": 1e6, "GHz": 1e9}[v.group(2)]
peak = size("channels") * size("bus_width") * size("data_rate")
c, l, b, hz = d["gpu.gpu_sim_cycle"], d["gpu.launch_latency_cycles"], d["gpu.dram_read_bytes"], d["sim.clock"]
us, tus = c / hz * 1e6, (c + l) / hz * 1e6
print(f"{cfg},{var},{d['gpu.kernels']},{c},{l},{us:.1f},{tus:.1f},{b},{b / us / 1e3:.0f},"
      f"{b / tus / 1e3:.0f},{peak / 1e9:.0f},{b / us * 1e6 / peak:.3f},{b / tus * 1e6 / peak:.3f}")
PY
    done
done
mv "$T/csv" "$CSV"
mv "$T/kcsv" "$OUT/gpu-llama-$SHAPE-kernels.csv"
cat "$CSV"
