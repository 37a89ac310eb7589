"""archgen: specs as code for AI racks and clusters."""

__version__ = "0.1.0"
