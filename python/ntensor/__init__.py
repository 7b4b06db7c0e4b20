"""ntensor: tensors with named dimensions (placeholder until the extension lands)."""
