"""Train a MiniLM cross-encoder on the `rerank` pools that `bench_cross_encoder.py dump` wrote, and score
held-out pools; plain torch + transformers, meant for one run on an accelerator (it runs on CPU too).

The model starts from the bi-encoder all-MiniLM-L6-v2's BERT weights with a one-logit head
(`AutoModelForSequenceClassification`, num_labels = 1) and reads ``[CLS] question [SEP] passage [SEP]``.
The loss is listwise: a softmax over each question's whole pool against a target spread over the
candidates in proportion to how many of the question's evidence sentences each holds (pools without an
evidence-bearing candidate teach nothing there and are skipped). Nothing is tuned on the scored folds:
the settings are fixed before the run.

Runs (each writes question id → scores in pool order as JSON under ``--out``):

- ``medical-cv``: for each of the 5 evidence folds, train on the other four, score the held-out one;
- ``novel-transfer``: train on all Medical questions, score every Novel pool (the transfer test);
- ``novel-cv``: 5-fold cross-validation on Novel from the MiniLM start;
- ``novel-cv-ft``: the same, starting from the model trained on all of Medical.

    PYTHONUNBUFFERED=1 python3 bench/cross_encoder_train.py --data DIR --model MODEL_DIR --out OUT \
        [--runs medical-cv novel-transfer novel-cv novel-cv-ft] [--limit N --epochs 1]   # N: a smoke test
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

START = time.time()


def log(message: str) -> None:
    print(f"[{time.time() - START:7.1f}s] {message}", flush=True)


def read_json(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


class Encoder:
    """Pre-tokenised questions and passages, paired on demand into padded batches."""

    def __init__(self, tokenizer: Any, chunks: dict[str, str], max_len: int, max_query: int) -> None:
        self.tok = tokenizer
        ids = list(chunks)
        pieces = tokenizer([chunks[c] for c in ids], add_special_tokens=False)["input_ids"]
        self.chunk = dict(zip(ids, pieces, strict=True))
        self.query: dict[str, list[int]] = {}
        self.max_len, self.max_query = max_len, max_query

    def add_queries(self, rows: list[dict]) -> None:
        todo = [r for r in rows if r["id"] not in self.query]
        if todo:
            pieces = self.tok([r["question"] for r in todo], add_special_tokens=False)["input_ids"]
            for r, p in zip(todo, pieces, strict=True):
                self.query[r["id"]] = p[: self.max_query]

    def batch(self, pairs: list[tuple[str, str]], device: torch.device) -> dict[str, torch.Tensor]:
        cls, sep = self.tok.cls_token_id, self.tok.sep_token_id
        seqs, types = [], []
        for qid, cid in pairs:
            q = self.query[qid]
            c = self.chunk[cid][: self.max_len - len(q) - 3]
            seqs.append([cls, *q, sep, *c, sep])
            types.append([0] * (len(q) + 2) + [1] * (len(c) + 1))
        width = max(len(s) for s in seqs)
        ids = torch.zeros(len(seqs), width, dtype=torch.long)
        tt = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for i, (s, t) in enumerate(zip(seqs, types, strict=True)):
            ids[i, : len(s)] = torch.tensor(s)
            tt[i, : len(t)] = torch.tensor(t)
            mask[i, : len(s)] = 1
        return {"input_ids": ids.to(device), "token_type_ids": tt.to(device), "attention_mask": mask.to(device)}


def load_model(path: str, device: torch.device) -> Any:
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1, dtype=torch.float32)
    return model.to(device)


def train(model: Any, enc: Encoder, rows: list[dict], args: argparse.Namespace, device: torch.device, seed: int) -> Any:
    """Listwise training on ``rows`` (pools with at least one evidence-bearing candidate)."""
    rows = [r for r in rows if any(r["label"])]
    enc.add_queries(rows)
    rng = random.Random(seed)
    torch.manual_seed(seed)
    steps = args.epochs * math.ceil(len(rows) / args.batch_questions)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.1 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    )
    model.train()
    step, losses = 0, []
    for epoch in range(args.epochs):
        rng.shuffle(rows)
        for start in range(0, len(rows), args.batch_questions):
            group = rows[start : start + args.batch_questions]
            pairs = [(r["id"], c) for r in group for c in r["pool"]]
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                logits = model(**enc.batch(pairs, device)).logits.float().squeeze(-1)
            loss = logits.new_zeros(())
            offset = 0
            for r in group:
                n = len(r["pool"])
                target = torch.tensor(r["label"], dtype=torch.float32, device=device)
                target = target / target.sum()
                loss = loss - (target * torch.log_softmax(logits[offset : offset + n], dim=0)).sum()
                offset += n
            loss = loss / len(group)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            losses.append(float(loss.detach()))
        log(f"    epoch {epoch + 1}/{args.epochs}: {step} steps, mean loss {sum(losses[-50:]) / len(losses[-50:]):.4f}")
    return model


@torch.no_grad()
def score(
    model: Any, enc: Encoder, rows: list[dict], device: torch.device, batch: int = 1024
) -> dict[str, list[float]]:
    enc.add_queries(rows)
    model.eval()
    pairs = [(r["id"], c) for r in rows for c in r["pool"]]
    out: list[float] = []
    for start in range(0, len(pairs), batch):
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            logits = model(**enc.batch(pairs[start : start + batch], device)).logits.float().squeeze(-1)
        out += logits.cpu().tolist()
    scores, offset = {}, 0
    for r in rows:
        scores[r["id"]] = [round(x, 5) for x in out[offset : offset + len(r["pool"])]]
        offset += len(r["pool"])
    return scores


def hits_at(rows: list[dict], scores: dict[str, list[float]], k: int = 5) -> float:
    """Share of evidence-bearing candidates ranked in the top k (a quick check only; recall is measured later)."""
    total = 0.0
    for r in rows:
        pos = sum(1 for x in r["label"] if x)
        if pos:
            order = sorted(range(len(r["pool"])), key=lambda i: -scores[r["id"]][i])[:k]
            total += sum(1 for i in order if r["label"][i]) / min(pos, k)
    return total / len(rows)


def cross_validate(
    base: str | Any, enc: Encoder, rows: list[dict], args: argparse.Namespace, device: torch.device, name: str
) -> dict[str, list[float]]:
    scores: dict[str, list[float]] = {}
    for fold in sorted({r["fold"] for r in rows}):
        started = time.time()
        model = load_model(base, device) if isinstance(base, str) else _copy(base, device)
        train_rows = [r for r in rows if r["fold"] != fold]
        test_rows = [r for r in rows if r["fold"] == fold]
        train(model, enc, train_rows, args, device, seed=fold)
        part = score(model, enc, test_rows, device)
        scores.update(part)
        log(
            f"  {name} fold {fold}: train {len(train_rows)}, test {len(test_rows)}, "
            f"hits@5 {hits_at(test_rows, part):.3f}, {time.time() - started:.1f}s"
        )
        del model
    return scores


def _copy(model: Any, device: torch.device) -> Any:
    import copy

    return copy.deepcopy(model).to(device)


def cpu_cost(args: argparse.Namespace) -> int:
    """CPU seconds (process time, all threads) to score one pool with the untrained model (same cost as a
    trained one), at torch's default thread count and at one thread."""
    device = torch.device("cpu")
    tok = AutoTokenizer.from_pretrained(args.model)
    pools = read_json(next(args.data.glob("medical.pools.json*")))[: args.cpu_cost]
    enc = Encoder(tok, read_json(next(args.data.glob("medical.chunks.json*"))), args.max_len, args.max_query)
    enc.add_queries(pools)
    model = load_model(args.model, device)
    for threads in (torch.get_num_threads(), 1):
        torch.set_num_threads(threads)
        score(model, enc, pools[:1], device, batch=64)  # warm-up
        cpu, wall = time.process_time(), time.perf_counter()
        for row in pools:
            score(model, enc, [row], device, batch=64)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        n = len(pools)
        log(f"{threads} thread(s): {cpu / n:.2f} CPU s, {wall / n:.2f} s wall per pool of {len(pools[0]['pool'])}")
    return 0


def run_all(args: argparse.Namespace, corpora: dict[str, tuple[list[dict], Encoder]], device: torch.device) -> dict:
    """The runs ``args.runs`` names, in order; each one's scores are saved as soon as it ends."""
    timings = {}

    def save(name: str, scores: dict[str, list[float]]) -> None:
        (args.out / f"{name}.json").write_text(json.dumps(scores))

    med, med_enc = corpora["medical"]
    nov, nov_enc = corpora["novel"]
    if "medical-cv" in args.runs:
        t = time.time()
        save("medical-cv", cross_validate(args.model, med_enc, med, args, device, "medical-cv"))
        timings["medical-cv"] = time.time() - t
    full = None
    if {"novel-transfer", "novel-cv-ft"} & set(args.runs):
        t = time.time()
        full = train(load_model(args.model, device), med_enc, med, args, device, seed=99)
        part = score(full, nov_enc, nov, device)
        save("novel-transfer", part)
        log(f"  novel-transfer: hits@5 {hits_at(nov, part):.3f}")
        timings["novel-transfer"] = time.time() - t
    if "novel-cv" in args.runs:
        t = time.time()
        save("novel-cv", cross_validate(args.model, nov_enc, nov, args, device, "novel-cv"))
        timings["novel-cv"] = time.time() - t
    if "novel-cv-ft" in args.runs and full is not None:
        t = time.time()
        save("novel-cv-ft", cross_validate(full, nov_enc, nov, args, device, "novel-cv-ft"))
        timings["novel-cv-ft"] = time.time() - t
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--runs", nargs="*", default=["medical-cv", "novel-transfer", "novel-cv", "novel-cv-ft"])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--batch-questions", type=int, default=16)
    parser.add_argument("--max-len", type=int, default=320)
    parser.add_argument("--max-query", type=int, default=64)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--cpu-cost", type=int, default=None, help="only time scoring this many Medical pools on CPU")
    args = parser.parse_args()
    if args.cpu_cost:
        return cpu_cost(args)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    chip = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    log(f"device {device}: {chip}; torch {torch.__version__}")
    args.out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(args.model)
    corpora = {}
    for name in ("medical", "novel"):
        pools = read_json(next(args.data.glob(f"{name}.pools.json*")))[: args.limit]
        chunks = read_json(next(args.data.glob(f"{name}.chunks.json*")))
        corpora[name] = (pools, Encoder(tok, chunks, args.max_len, args.max_query))
        log(f"{name}: {len(pools)} pools, {len(chunks)} chunks")
    settings = {k: v for k, v in vars(args).items() if k not in ("data", "out", "runs")}
    timings = run_all(args, corpora, device)
    (args.out / "run.json").write_text(json.dumps({"settings": settings, "seconds": timings, "device": str(device)}))
    log(f"done: {timings}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
