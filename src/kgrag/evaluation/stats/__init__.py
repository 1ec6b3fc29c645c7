"""One statistics module for every comparison kgrag reports: intervals over questions
(:mod:`.intervals`), family-wise control (:mod:`.family`), verdicts (:mod:`.verdicts`) and the
question-count planner (:mod:`.planner`)."""
