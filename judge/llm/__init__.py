"""Stage 3: the LLM judge, for what rules cannot decide (rule 8: step_not_implemented; rule 4: overreach, reversal)."""
