"""Hot algorithms, one folder each: the NumPy form, the compiled form and
the size rule that picks one, side by side.

==================  =======================================================
``gapped_kmers``    pairs of l-mers within d mismatches (gapped k-mer kernels)
==================  =======================================================
"""
