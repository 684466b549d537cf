"""Import speed: ours vs TensorFlow's MLIR importer on the same frozen GraphDef, same process.

    python benchmarks/import_speed.py [--cache-dir /tmp/zoo] [--model ResNet50] [--repeat 3]
    python benchmarks/import_speed.py --bert-memory      # + peak memory of a BERT-base-size import

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
    from compiler.importers.graphdef import import_graphdef_file
    from compiler.model_zoo import frozen_graphdef
    from compiler.tf_loader import tensorflow

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
import resource, sys, os
sys.path.insert(0, sys.argv[2])
from compiler.tf_loader import tensorflow
tf = tensorflow()
from compiler.importers.graphdef import import_graphdef_file
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
m = import_graphdef_file(sys.argv[1], warn=lambda _: None)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024)
"""


def bert_memory(cache_dir: str) -> None:
    from compiler.model_zoo import bert_encoder, freeze

    path = os.path.join(cache_dir, "BertBase.pb")
    if not os.path.exists(path):
        gd = freeze(bert_encoder(layers=12, hidden=768, heads=12, ffn=3072))
        with open(path + ".tmp", "wb") as f:
            f.write(gd.SerializeToString())
        os.replace(path + ".tmp", path)
    weights = os.path.getsize(path)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", _CHILD, path, repo], capture_output=True, text=True)
    growth = int(out.stdout.strip().splitlines()[-1])
    print(f"BERT-base-size: file {weights / 1e6:.0f} MB, peak RSS growth during import "
          f"{growth / 1e6:.0f} MB, ratio {growth / weights:.2f}x (goal <= 2x)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "cann-mlir-zoo"))
    p.add_argument("--model", default="ResNet50")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--bert-memory", action="store_true")
    args = p.parse_args()
    speed(args.model, args.cache_dir, args.repeat)
    if args.bert_memory:
        bert_memory(args.cache_dir)


if __name__ == "__main__":
    main()
