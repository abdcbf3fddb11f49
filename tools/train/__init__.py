"""Training: the model files' format (spec, safetensors), the models, the training loops, fixtures."""
