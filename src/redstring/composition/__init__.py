"""The top layer: the only modules that hold collaborators no lower layer may hold together."""
