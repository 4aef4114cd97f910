"""The least-squares fit both judgements share (research/moku/judgement.py for 15x15
Slime-Moku, research/trail/judgement.py for the big Slime Trail boards): R2 on games the fit
did not see, and its report band by band beside the playouts' own."""

from __future__ import annotations

import numpy as np


def held_out(features: np.ndarray, outcome: np.ndarray, groups: np.ndarray) -> float:
    """R2 of a least-squares fit (with a constant) judged on games it was not fitted on
    (five folds by game)."""
    predicted = np.zeros_like(outcome)
    fold = groups.astype(np.int64) * 7919 % 5
    for k in range(5):
        train, test = fold != k, fold == k
        weights, *_ = np.linalg.lstsq(
            np.c_[np.ones(train.sum()), features[train]], outcome[train], rcond=None
        )
        predicted[test] = np.c_[np.ones(test.sum()), features[test]] @ weights
    return float(1 - ((outcome - predicted) ** 2).mean() / outcome.var())


def report(
    label: str,
    bands: tuple[tuple[int, int], ...],
    sizes: np.ndarray,
    rows: np.ndarray,
) -> list[str]:
    """A line for each band ``[low, high)`` of ``sizes`` with 100 rows or more: the held-out
    R2 of the playouts, of the judgement's terms and of both.  ``rows``: (game seed, size,
    the terms..., the playouts' mean score, the outcome for the side to move)."""
    seeds, terms, playout, outcome = rows[:, 0], rows[:, 2:-2], rows[:, -2:-1], rows[:, -1]
    lines = []
    for low, high in bands:
        band = (sizes >= low) & (sizes < high)
        if band.sum() < 100:
            continue
        g, y = seeds[band], outcome[band]
        lines.append(
            f"{label} {low}-{high - 1}: {band.sum()} positions, held-out R2: playouts "
            f"{held_out(playout[band], y, g):.3f}, judgement {held_out(terms[band], y, g):.3f}, "
            f"both {held_out(np.c_[terms[band], playout[band]], y, g):.3f}"
        )
    return lines
