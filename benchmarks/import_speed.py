"""Import speed: ours vs TensorFlow's MLIR importer on the same frozen GraphDef, same process.

    python benchmarks/import_speed.py [--cache-dir /tmp/zoo] [--model ResNet50] [--repeat 3]
    python benchmarks/import_speed.py --bert-memory      # + peak memory of a BERT-base-size import
    python benchmarks/import_speed.py --memory-only      # only the memory measurement

Prints both times (median) and the ratio (goal: ours >= 5x faster).  With --bert-memory, a
12-layer, hidden-768 encoder (~440 MB of weights) is built, frozen and imported in a child
process, and its peak RSS growth is compared with the weight bytes (goal: <= 2x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def speed(model: str, cache_dir: str, repeat: int) -> None:
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.frontend.tf_loader import tensorflow
    from tests.model_zoo.zoo import frozen_graphdef

    tf = tensorflow()
    path = frozen_graphdef(model, cache_dir)
    ours = _median_time(lambda: import_graphdef_file(path, warn=lambda _: None), repeat)

    def theirs():
        gd = tf.compat.v1.GraphDef()
        with open(path, "rb") as f:
            gd.ParseFromString(f.read())
        tf.mlir.experimental.convert_graph_def(gd)

    tf_time = _median_time(theirs, max(1, repeat - 1))
    print(f"{model}: ours {ours:.2f} s, tf.mlir.experimental.convert_graph_def {tf_time:.2f} s, "
          f"ratio {tf_time / ours:.1f}x (goal >= 5x)")


_CHILD = r"""
import os, sys
sys.path.insert(0, sys.argv[2])

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None

from compiler.frontend.tf_loader import tensorflow
tf = tensorflow()
import compiler.frontend.importers.graphdef as imp
import compiler.frontend.importers.functionalize, dialects.tf, dialects.common  # noqa: F401 (loaded first)
try:  # reset the high-water mark to the current RSS: TensorFlow's own start-up peak is not ours
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    reset = True
except OSError:
    reset = False
before_rss, before_hwm = status("VmRSS"), status("VmHWM")
m = imp.import_graphdef_file(sys.argv[1], warn=lambda _: None)
after_hwm = status("VmHWM")
print(before_rss, before_hwm, after_hwm, int(reset))
"""


def weight_bytes(tf, path: str) -> int:
    gd = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    total = 0
    for n in gd.node:
        if n.op == "Const":
            t = n.attr["value"].tensor
            total += len(t.tensor_content) or t.ByteSize()
    return total


def bert_memory(cache_dir: str) -> None:
    """Peak RSS growth of importing a BERT-base-size frozen graph, in a fresh process that has
    loaded TensorFlow and the importer first and reset its high-water mark (/proc/self/clear_refs)
    just before the import, as a ratio to the bytes of the graph's Const tensors."""
    from compiler.frontend.tf_loader import tensorflow
    from tests.model_zoo.zoo import _recipe_digest, bert_encoder, freeze

    tf = tensorflow()
    os.makedirs(cache_dir, exist_ok=True)
    path = os.path.join(cache_dir, f"BertBase-{_recipe_digest()}.pb")
    if not os.path.exists(path):
        gd = freeze(bert_encoder(layers=12, hidden=768, heads=12, ffn=3072))
        with open(path + ".tmp", "wb") as f:
            f.write(gd.SerializeToString())
        del gd
        os.replace(path + ".tmp", path)
    weights = weight_bytes(tf, path)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", _CHILD, path, repo], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "child failed")
        return
    rss, hwm, peak, reset = map(int, out.stdout.strip().splitlines()[-1].split())
    growth = peak - (rss if reset else hwm)
    how = "high-water mark reset before the import" if reset else \
        "no /proc/self/clear_refs: growth of the high-water mark only (a lower bound)"
    print(f"BERT-base-size: file {os.path.getsize(path) / 1e6:.0f} MB, Const weights "
          f"{weights / 1e6:.0f} MB; RSS before import {rss / 1e6:.0f} MB, peak during import "
          f"{peak / 1e6:.0f} MB ({how}); peak growth {growth / 1e6:.0f} MB, "
          f"ratio {growth / weights:.2f}x (goal <= 2x)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "cann-mlir-zoo"))
    p.add_argument("--model", default="ResNet50")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--bert-memory", action="store_true")
    p.add_argument("--memory-only", action="store_true", help="only the BERT memory measurement")
    args = p.parse_args()
    if not args.memory_only:
        speed(args.model, args.cache_dir, args.repeat)
    if args.bert_memory or args.memory_only:
        bert_memory(args.cache_dir)


if __name__ == "__main__":
    main()
