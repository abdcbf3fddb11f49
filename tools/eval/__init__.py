"""Evaluation: AER of every pair and method, chrF of the translation models, paired comparisons."""
