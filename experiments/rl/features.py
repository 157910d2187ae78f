"""The input layer's former address: models saved before it moved beside the model
(:mod:`strategies.features`) name :class:`LogScaledFlat` by this import path in their pickled data."""

from strategies.features import LogScaledFlat

__all__ = ["LogScaledFlat"]
