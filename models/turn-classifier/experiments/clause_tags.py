#!/usr/bin/env python3
"""An experiment, not the shipped model: the sensitive head with each word also as a token tagged
by its clause's state (a purchase or compare cue of the language packs in the clause; a negation,
after-sales or negation-before cue in it), against the n-grams alone, each under two ways of
hashing the tag and two table sizes. Clauses end at . ! ? ; , 。 and at the packs' clause breaks;
a cue counts in the clause holding all of it, an English phrase only as whole words (the recipe
session 26 built into the core and trainer, bit for bit, before measuring it; docs/relevance.md,
"Clause-tagged words, built and measured: hash noise"). Same trainer and seed as train.py
otherwise; prints the table that section reports.

    npm run eval:relevance -- --split dev --json /tmp/dev.json      # which dev turns only the head decides
    python3 models/turn-classifier/experiments/clause_tags.py /tmp/dev.json   # about ten minutes
"""
from __future__ import annotations

import importlib.util
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
spec = importlib.util.spec_from_file_location("train", HERE.parent / "train.py")
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)

PACKS = [json.loads((REPO / "crates" / "sidenote-core" / "packs" / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("ko", "en")]
# Role per kind: 0 ends a clause, else the state bit a cue sets in its clause.
ROLES = {"clause_break": 0, "purchase": 1, "compare": 1, "negation": 2, "negation_before": 2, "after_sales": 2}
CUES = [(T.normalize(r["phrase"]).encode(), role) for p in PACKS for kind, role in ROLES.items() for r in p["intent_cues"].get(kind, [])]


def _alnum(b: int) -> bool:
    return b < 128 and bytes([b]).isalnum()


def clauses(normalized: str) -> list[tuple[int, str]]:
    """(state, text) of every clause in order."""
    text = normalized.encode()
    cut, cues = [False] * len(text), []
    for phrase, role in CUES:
        at = text.find(phrase) if phrase else -1
        while at != -1:
            end = at + len(phrase)
            if not ((_alnum(phrase[0]) and at > 0 and _alnum(text[at - 1])) or (_alnum(phrase[-1]) and end < len(text) and _alnum(text[end]))):
                if role == 0:
                    cut[at:end] = [True] * len(phrase)
                else:
                    cues.append((at, end, role))
            at = text.find(phrase, at + 1)
    for i, b in enumerate(text):
        cut[i] = cut[i] or b in b".!?;,"
    at = text.find("。".encode())
    while at != -1:
        cut[at:at + 3] = [True] * 3
        at = text.find("。".encode(), at + 1)
    spans, clause_at = [], [-1] * len(text)
    for i, is_cut in enumerate(cut):
        if not is_cut:
            if spans and spans[-1][1] == i:
                spans[-1][1] = i + 1
            else:
                spans.append([i, i + 1, 0])
            clause_at[i] = len(spans) - 1
    for start, end, bit in cues:
        if clause_at[start] != -1 and clause_at[start] == clause_at[end - 1]:
            spans[clause_at[start]][2] |= bit
    return [(state, text[s:e].decode()) for s, e, state in spans]


def tagged(normalized: str, encoding: str, mask: int) -> list[int]:
    out = []
    for state, clause in clauses(normalized):
        for w in T.words(clause):
            if encoding == "byte":  # what session 26 built: [0x04, state] + word
                data = bytes([0x04, state]) + w.encode()
            else:  # what session 25's experiment hashed: 0x05 + "A|word", "nN|word", …
                data = bytes([0x05]) + f"{'A' if state & 1 else 'n'}{'N' if state & 2 else ''}|{w}".encode()
            out.append(T._fnv(T.FNV_OFFSET, data) & mask)
    return out


def train_and_score(encoding: str | None, bits: int, rows: list[dict], turns: list[str]) -> list[float]:
    mask = (1 << bits) - 1

    def feats(text: str):
        normalized = T.normalize(text)
        return T.sparse(T.features(normalized, mask) + (tagged(normalized, encoding, mask) if encoding else []))

    w, g2, b, b2 = [0.0] * (mask + 1), [1e-8] * (mask + 1), 0.0, 1e-8
    examples = [(feats(r["text"]), r["sensitive"]) for r in rows]
    rng, order = random.Random(T.SEED), list(range(len(examples)))
    for _ in range(T.EPOCHS):
        rng.shuffle(order)
        for i in order:
            x, y = examples[i]
            err = T.sigmoid(b + sum(w[k] * v for k, v in x)) - y
            if y == 1:
                err *= T.SENSITIVE_POSITIVE_WEIGHT
            for k, v in x:
                g = err * v + T.L2 * w[k]
                g2[k] += g * g
                w[k] -= T.LEARNING_RATE * g / math.sqrt(g2[k])
            b2 += err * err
            b -= T.LEARNING_RATE * err / math.sqrt(b2)
    return [b + sum(w[k] * v for k, v in feats(t)) for t in turns]


def main() -> int:
    results = {r["id"]: r for r in json.loads(Path(sys.argv[1]).read_text())["results"]}
    rows = T.load(HERE.parent / "data" / "train.jsonl")
    validation = T.load(HERE.parent / "data" / "validation.jsonl")
    dev = [json.loads(line) for line in (REPO / "eval" / "relevance" / "dev.jsonl").open(encoding="utf-8")]
    # The dev turns no catalog word or pattern decides: only the head can block them.
    head_decided = [i for i, c in enumerate(dev) if not any(p != "sensitive" for p in results[c["id"]]["policy_reasons"])]
    print("| sensitive head | buckets | validation: false positives at 97% recall | dev false alarms at 90 / 96 / 100 / 105 / 110 head-decided blocks |")
    print("|---|---:|---:|---:|")
    for bits in (18, 20):
        for encoding in (None, "byte", "string"):
            scores = train_and_score(encoding, bits, rows, [r["text"] for r in validation] + [c["message"] for c in dev])
            val, dv = scores[: len(validation)], scores[len(validation):]
            positives = sorted((s for s, r in zip(val, validation) if r["sensitive"]), reverse=True)
            cut = positives[int(0.97 * len(positives)) - 1]
            fp = sum(1 for s, r in zip(val, validation) if not r["sensitive"] and s >= cut)
            blocks = sorted((dv[i] for i in head_decided if dev[i]["expect"] == "block"), reverse=True)
            others = [dv[i] for i in head_decided if dev[i]["expect"] != "block"]
            alarms = " / ".join(str(sum(1 for s in others if s >= blocks[k - 1])) for k in (90, 96, 100, 105, 110))
            name = {None: "n-grams only", "byte": "+ clause-tagged words, tag as a byte", "string": "+ clause-tagged words, tag as text"}[encoding]
            print(f"| {name} | 2^{bits} | {fp} | {alarms} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
