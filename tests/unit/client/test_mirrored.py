"""Which ids a folder named for indexing claims (`MirroredFolder`): what its walk could give.

Pure but for the folders written under `tmp_path`; the stores are in
`test_folder_mirror.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.client.documents import read_documents
from redstring.client.mirrored import MirroredFolder, mirrored_folder

FILES = ("a.md", "b.TXT", "sub/c.markdown", "sub/deep/d.md", ".hidden/e.md", "sub/.f.md")


def _tree(folder: Path) -> Path:
    for name in FILES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"the text of {name}\n")
    (folder / "sub" / "image.png").write_bytes(b"\x89PNG")
    return folder


@pytest.mark.parametrize("own_root", [False, True])
def test_a_folder_claims_every_id_its_walk_gives(tmp_path: Path, own_root: bool) -> None:
    folder = _tree(tmp_path / "notes")
    read = read_documents([folder], root=folder if own_root else None)
    assert len(read.documents) == 4
    [mirrored] = read.folders
    assert all(mirrored.claims(document.id) for document in read.documents)


def test_a_folder_below_its_root_claims_the_ids_under_its_name_only(tmp_path: Path) -> None:
    notes = _tree(tmp_path / "notes")
    mirrored = mirrored_folder(notes, tmp_path)
    assert mirrored == MirroredFolder(prefix="notes/")
    assert mirrored.claims("notes/gone/away.md")
    for other in ("notes.md", "notesx/a.md", "other/a.md", "a.md", ""):
        assert not mirrored.claims(other), other
    for unwalked in ("notes/.hidden/e.md", "notes/sub/.f.md", "notes/sub/image.png"):
        assert not mirrored.claims(unwalked), unwalked


def test_a_hidden_folder_named_itself_claims_its_ids(tmp_path: Path) -> None:
    hidden = _tree(tmp_path / ".notes")
    mirrored = mirrored_folder(hidden, tmp_path)
    assert mirrored.claims(".notes/a.md")
    assert not mirrored.claims(".notes/.hidden/e.md")


def test_a_folder_that_is_its_root_claims_its_files_and_its_subfolders_ids(
    tmp_path: Path,
) -> None:
    notes = _tree(tmp_path / "notes")
    (notes / "linked").symlink_to(tmp_path, target_is_directory=True)  # walked into, as a folder
    mirrored = mirrored_folder(notes, notes)
    assert mirrored == MirroredFolder(prefix="", subfolders=frozenset({"sub", "linked"}))
    for claimed in ("a.md", "gone.md", "sub/c.markdown", "sub/gone/x.md", "linked/a.md"):
        assert mirrored.claims(claimed), claimed
    # Another folder's ids (rA/a.md from `index rA`), a subfolder no longer there, and
    # what the walk never reads are not this folder's to remove.
    for unclaimed in ("rA/a.md", "gone/x.md", ".hidden/e.md", "sub/image.png"):
        assert not mirrored.claims(unclaimed), unclaimed
