"""The showcase: Fisher kernel vs k-mer spectrum on sequences from two HMMs."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(relative):
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bundled_data_is_what_the_generator_makes():
    make = _load("data/make_hmm_sequences.py")
    records = make.make_hmm_sequences()
    expected = "".join(
        f">hmm{i:03d} class={label} split={split}\n{seq}\n"
        for i, (seq, label, split) in enumerate(records)
    )
    assert (ROOT / "data" / "hmm_sequences.fasta").read_text() == expected
    assert sum(split == "train" for _, _, split in records) == len(records) // 2


def test_fisher_kernel_separates_hmm_classes_better_than_small_k_spectrum():
    example = _load("examples/fisher_hmm.py")
    results = example.compare(ks=(1, 2, 3))
    spectrum = max(v for name, v in results.items() if name.startswith("spectrum"))
    fisher = results["Fisher transition+emission"]
    assert fisher >= 0.75, results
    assert fisher >= spectrum + 0.1, results
    assert results["Fisher emission"] > spectrum, results
