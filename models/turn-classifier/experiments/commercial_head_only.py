#!/usr/bin/env python3
"""An experiment, not the shipped model: the sensitive head kept bit for bit as shipped, the
commercial head trained again on train.jsonl plus extra turns (every eighth extra turn held back),
with train.py's trainer, seed and thresholds. It OVERWRITES the core's weights file, so the
service can be measured with it; `git checkout crates/sidenote-core/src/model/turn-classifier.bin`
puts the shipped one back (docs/relevance.md, "The commercial head on 611 more turns written blind,
not kept").

    python3 models/turn-classifier/experiments/commercial_head_only.py models/turn-classifier/data/not-yet-used/session-29.jsonl
    npm run build:native && npm run eval:relevance -- --split dev
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("train", HERE.parent / "train.py")
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)


def main() -> int:
    mask = (1 << T.BUCKET_BITS) - 1
    train_rows = T.load(T.HERE / "data" / "train.jsonl")
    validation_rows = T.load(T.HERE / "data" / "validation.jsonl")
    extra = [json.loads(line) for path in sys.argv[1:] for line in open(path, encoding="utf-8") if line.strip()]
    extra_train = [r for i, r in enumerate(extra) if i % 8 != 7]
    extra_held = [r for i, r in enumerate(extra) if i % 8 == 7]
    _bits, shipped_biases, shipped_scales, shipped = T.decode(T.WEIGHTS_PATH.read_bytes())
    weights, bias = T.train(train_rows + extra_train, mask)
    retrained, scales = T.quantise(weights)
    combined = list(shipped)
    for b in range(mask + 1):
        combined[2 * b + 1] = retrained[2 * b + 1]
    biases = [shipped_biases[0], T.f32(bias[1])]
    scales = [shipped_scales[0], scales[1]]
    threshold = T.SERVICE_THRESHOLDS[1]
    for name, rows in (("validation", validation_rows), ("extra held back", extra_held)):
        logits = [T.quantised_logit(biases[1], scales[1], combined, T.features(T.normalize(r["text"]), mask), 1) for r in rows]
        asks = sum(r["commercial"] for r in rows)
        read = sum(1 for z, r in zip(logits, rows) if z >= threshold and r["commercial"])
        false = sum(1 for z, r in zip(logits, rows) if z >= threshold and not r["commercial"])
        print(f"{name}: commercial turns read {read}/{asks}, other turns read as commercial {false}/{len(rows) - asks}")
    T.WEIGHTS_PATH.write_bytes(T.encode(combined, biases, scales, list(T.SERVICE_THRESHOLDS)))
    print(f"wrote {T.WEIGHTS_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
