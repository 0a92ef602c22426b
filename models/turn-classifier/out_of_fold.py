#!/usr/bin/env python3
"""The service on the relevance benchmark's dev split, each turn answered by a classifier that
never saw it: the sensitive head learns from dev (train.py), so dev figures on the shipped model
say how well it fits, not how well it reads. Each of train.py's five folds is left out in turn:
train.py --fold k, the core built with that model, the dev split run, and that fold's answers
kept. The shipped weights are put back at the end. About 15 minutes on two cores.

    python3 models/turn-classifier/out_of_fold.py --json /tmp/dev-out-of-fold.json

The JSON is eval:relevance's, one result per dev turn, each with the out-of-fold sensitive and
commercial logits its model gave the turn as the core's classifier reads it (normalised, the first
256 characters; typos not corrected), so a threshold can be tried on it without a build.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("train", HERE / "train.py")
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)
MODEL_MAX_CHARS = 256  # crates/sidenote-core/src/index.rs


def run(*cmd: str) -> None:
    subprocess.run(cmd, cwd=T.REPO, check=True, stdout=subprocess.DEVNULL)


def summary(results: list[dict]) -> str:
    lines = []
    for lang in ("ko", "en", "all"):
        rs = [r for r in results if lang == "all" or r["lang"] == lang]
        by = {e: [r for r in rs if r["expect"] == e] for e in ("serve", "silent", "block")}
        right = sum(r["correct"] for r in rs)
        lines.append(
            f"{lang:>3}: {right}/{len(rs)} right ({100 * right / len(rs):.1f}%), "
            f"sensitive blocked {sum(r['blocked'] for r in by['block'])}/{len(by['block'])}, "
            f"silent answered POLICY_BLOCK {sum(r['blocked'] for r in by['silent'])}/{len(by['silent'])}, "
            f"commercial refused POLICY_BLOCK {sum(r['blocked'] for r in by['serve'])}/{len(by['serve'])}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, required=True, help="where to write every dev turn's out-of-fold answer")
    args = parser.parse_args()
    shipped = T.WEIGHTS_PATH.read_bytes()
    mask = (1 << T.BUCKET_BITS) - 1
    dev = {c["id"]: c for c in T.load(T.BENCHMARK / "dev.jsonl")}
    kept: list[dict] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(T.FOLDS):
                model = Path(tmp) / f"fold-{k}.bin"
                answers = Path(tmp) / f"fold-{k}.json"
                print(f"fold {k}: training, building, answering", file=sys.stderr)
                subprocess.run([sys.executable, str(HERE / "train.py"), "--fold", str(k), "--out", str(model)], check=True, stdout=subprocess.DEVNULL)
                T.WEIGHTS_PATH.write_bytes(model.read_bytes())
                run("npm", "run", "build:native")
                # eval:relevance exits 1 when a case fails: the answers are written either way.
                subprocess.run(["npm", "run", "eval:relevance", "--", "--split", "dev", "--no-failures", "--json", str(answers)], cwd=T.REPO, stdout=subprocess.DEVNULL)
                _bits, biases, scales, weights = T.decode(model.read_bytes())
                for r in json.loads(answers.read_text())["results"]:
                    if T.fold_of(r["id"]) != k:
                        continue
                    text = T.normalize(dev[r["id"]]["message"])[:MODEL_MAX_CHARS]
                    buckets = T.features(text, mask)
                    r["sensitive_logit"] = T.quantised_logit(biases[0], scales[0], weights, buckets, 0)
                    r["commercial_logit"] = T.quantised_logit(biases[1], scales[1], weights, buckets, 1)
                    kept.append(r)
    finally:
        T.WEIGHTS_PATH.write_bytes(shipped)
        run("npm", "run", "build:native")
    args.json.write_text(json.dumps({"results": kept}, ensure_ascii=False))
    print(summary(kept))
    return 0


if __name__ == "__main__":
    sys.exit(main())
