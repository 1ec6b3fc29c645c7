"""First passes stopped in a repetition loop, as the estimate prices them.

A reply that falls into a repetition loop is stopped there (:mod:`.reply_loop`) and accepted as what it
said before the loop: its unit is asked nothing more (no re-ask, no smaller retry) and is not gleaned. So
a model that loops on a share of its units spends, on those units, what was read before each loop, and
nothing after. The estimate takes both from the model's measured calls
(:func:`~kgrag.models.llm.reply_stats.measure_replies`: the ``--probe`` units' or the workspace's recent
extraction calls):

* each first pass is priced at the measured share of loops times the mean reply read before a loop, plus
  the rest of the share times the measured reply of a unit that did not loop (scaled by its names);
* the gleaning predicted unit by unit on the stand-in graph (which knows nothing of loops) is cut by that
  share. A gleaning share or a follow-up rate measured per first call needs no cut: the looped first
  calls are among those it was measured on.

The share is the measured one, as for failed replies (:func:`~kgrag.models.llm.estimate_range.
extraction_point_rate`): on the one or two units of a probe it is 0 or 1 (or a half), so an estimate that
rests on it says how many replies it was measured on, and the estimate's range takes the share at the
ends of its Jeffreys interval (:func:`~kgrag.models.llm.estimate_range.failure_interval`) for the
gleaning: a probe whose one unit did not loop does not rule out a model that loops on most units, and
units that loop are not gleaned. Only the gleaning moves with it: what a loop that was never seen would
read is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoopShare:
    """The measured share of first passes stopped in a loop and the mean reply read before the loop."""

    share: float = 0.0
    completion: float = 0.0
    loops: int = 0  # the looped replies measured
    first_calls: float = 0.0  # the first calls they were measured among

    def interval(self) -> tuple[float, float]:
        """The share's Jeffreys interval (the measured share at both ends when nothing was measured)."""
        from kgrag.models.llm.estimate_range import failure_interval

        if self.first_calls <= 0:
            return self.share, self.share
        return failure_interval(self.loops, max(self.loops, round(self.first_calls)))

    def first_pass(self, unlooped: float) -> float:
        """The completion of a first pass whose reply, when it does not loop, is ``unlooped`` tokens."""
        return (1 - self.share) * unlooped + self.share * self.completion

    def unlooped(self, completion: float, first_passes: int) -> float:
        """Of ``completion`` tokens priced for ``first_passes`` first passes by :meth:`first_pass`, those of
        the replies that do not loop, per first pass as if none looped (what a gleaning reply is a share of)."""
        if self.share >= 1 or not first_passes:
            return completion
        return (completion - self.share * self.completion * first_passes) / (1 - self.share)

    def line(self) -> str:
        """The assumption line, or "" when no reply looped."""
        if not self.loops:
            return ""
        return (
            f"calibrated from this workspace's ledger: {self.share:.0%} of first passes stop in a repetition loop "
            f"({self.loops} of {self.first_calls:.0f} measured), each priced at the {self.completion:.0f} tokens "
            "read before the loop, without gleaning or a follow-up"
        )
