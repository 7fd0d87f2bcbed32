"""Exact explanations of kernel models with explicit features.

A fitted dual learner predicts ``f(x) = b + sum_i c_i k(x, s_i)``. When
``k`` is a sum, multiple or cosine normalisation of kernels whose features
count k-mers, gapped pairs, Weisfeiler-Lehman subtrees or shortest paths,
``f`` is a weighted sum of the features of ``x`` (see :mod:`._tree`), and
every feature occurs at known positions of a sequence or nodes of a graph.
:class:`Explainer` collapses the support vectors into one weight per
feature, once, and then

* :meth:`Explainer.feature_weights` lists the features with the largest
  positive and negative weights, by name (``ACGTG``, ``AC..TG``,
  ``CGT@12``, ``t=1: C(C,N)``, ``C -2- N``);
* :meth:`Explainer.contributions` splits ``f(x) - bias`` over the
  positions or nodes of ``x``: each feature's term ``gamma(x) W_u
  phi_u(x)`` is shared among its occurrences in proportion to their
  values, and each occurrence's share equally among the positions (or
  nodes) it covers. The scores sum, with the bias, to ``f(x)`` exactly
  (up to rounding);
* :meth:`Explainer.ism` gives the change of ``f`` for every single-symbol
  substitution of a sequence, recomputing only the features whose
  occurrences cover the substituted position (and the norms of
  normalised kernels), and :meth:`Explainer.hypothetical` the contribution
  each position would have with each symbol (GkmExplain's hypothetical
  importance).

Under ``Exp``, products and powers of such kernels (:mod:`._nonlinear`)
the scores are the integrated gradients of ``f`` along ``t Phi(x)``, ``t``
from 0 to 1, in the inner kernels' feature spaces (M. Sundararajan, A. Taly
and Q. Yan, "Axiomatic attribution for deep networks", ICML 2017): the
decomposition above with coefficients that depend on the object (for
``Exp(inner)``: ``c_i (exp(k_i) - 1) / k_i``), and ``f(0)`` in the bias, so
they still sum to ``f(x)``.

With ``Normalize`` (or ``normalize=True``) the decomposition is still
exact: the factor ``gamma(x) = 1 / ||phi(x)||`` is the object's own, so a
position's score is its share of the normalised features' inner product
with the weights. What it does not say is how much ``f`` would change
without that position, because removing it also changes the norm; ISM
answers that question.

References
----------
A. Shrikumar, E. Prakash and A. Kundaje, "GkmExplain: fast and accurate
interpretation of nonlinear gapped k-mer SVMs", Bioinformatics 35(14),
2019, i173-i182 (contributions split over the positions of each k-mer,
hypothetical contributions).
D. Lee, D. U. Gorkin, M. Baker, B. J. Strober, A. L. Asoni, A. S. McCallion
and M. A. Beer, "A method to predict the impact of regulatory variants from
DNA sequence", Nature Genetics 47, 2015, 955-961 (deltaSVM: the change of
the SVM score between alleles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _nonlinear, _tree
from ._model import readout
from ._occurrences import group, lookup, spread
from ._tree import NoExplicitFeaturesError


@dataclass
class Explanation:
    """The contributions of one object's units (positions or nodes).

    Attributes
    ----------
    scores : ndarray (n_units,)
        Contribution of each position or node.
    bias : float
        The intercept plus the part of constant kernels; ``bias +
        scores.sum()`` equals ``decision``.
    decision : float
        The decision value ``f(x)`` from the decomposition.
    units : list
        The symbols at the positions, or the graph's nodes.
    edges : list or None
        With ``contributions(X, edges=True)`` on graphs: the graph's edges,
        in the order of ``G.edges``.
    edge_scores : ndarray (n_edges,) or None
        The edges' contributions; then ``bias + scores.sum() +
        edge_scores.sum()`` equals ``decision`` (``scores`` being the
        nodes' part of the node and edge split, see
        :meth:`Explainer.contributions`).
    """

    scores: np.ndarray
    bias: float
    decision: float
    units: list
    edges: list | None = None
    edge_scores: np.ndarray | None = None


class Explainer:
    """Explain a fitted structk learner whose kernel has explicit features.

    Parameters
    ----------
    model : fitted KernelSVM, KernelRidge, KernelRidgeCV,
        KernelLogisticRegression or KernelPerceptron, fitted with a kernel
        (not a precomputed Gram matrix).
    output : int, optional
        Which decision function of a model with several (one-vs-rest
        classes, one-vs-one pairs, regression targets); required then.

    Raises
    ------
    NoExplicitFeaturesError
        When the kernel (or a part of it) has no explicit features that
        occur at positions or nodes (random walk, local alignment, Fisher
        kernels), or normalises a product, power or exponential: the
        message says so and points to :func:`structk.explain.ism` for
        sequences.
    """

    def __init__(self, model, output=None):
        ro = readout(model)
        coef, self.intercept = ro.row(output)
        self.model, self.output = model, output
        self.output_name = ro.output_names[0 if output is None else int(output)]
        self.kernel = ro.kernel
        keep = np.flatnonzero(coef != 0)
        objects = [ro.objects[i] for i in keep.tolist()]
        coef = coef[keep]
        self._sv_objects, self._coef = objects, coef
        # a smooth function F of decomposable blocks (Exp, products, powers):
        # integrated gradients, with coefficients that depend on the object
        parsed = _nonlinear.parse(ro.kernel)
        if parsed is None:
            self._expr, self._blocks = None, [self]
            self._setup(ro.kernel, objects, coef)
            return
        self._expr, kernels = parsed
        self._blocks = []
        for k in kernels:
            block = object.__new__(Explainer)
            block.intercept, block.kernel = 0.0, k
            block._setup(k, objects, coef)
            self._blocks.append(block)
        grads = _nonlinear.gradient_at_zero(self._expr, len(kernels), coef.shape)
        self.tree = None
        self.leaves = [leaf for b in self._blocks for leaf in b.leaves]
        self._sv_enc = [e for b in self._blocks for e in b._sv_enc]
        self._sv_occ = [o for b in self._blocks for o in b._sv_occ]
        self._weights = [w for b, g in zip(self._blocks, grads) for w in b._collapse(coef * g)]

    def _setup(self, kernel, objects, coef):
        """Leaves, support-vector features and weights of a decomposable kernel."""
        self.tree, self.leaves = _tree.build(kernel)
        self._sv_enc = [leaf.encode(objects, "support vectors") for leaf in self.leaves]
        self._sv_occ = [leaf.occurrences(e) for leaf, e in zip(self.leaves, self._sv_enc)]
        n = len(objects)
        feats = [
            self._features(leaf, occ, n, enc)
            for leaf, occ, enc in zip(self.leaves, self._sv_occ, self._sv_enc)
        ]
        gam = _tree.gammas(self.tree, [f[3] for f in feats])
        self._sv_feats = [(owner, keys, phi, g) for (owner, keys, phi, _, _), g in zip(feats, gam)]
        self._weights = self._collapse(coef)

    def _collapse(self, coef):
        """The weights ``W`` of each leaf for support-vector coefficients ``coef``."""
        weights = []
        for leaf, (owner, keys, phi, g) in zip(self.leaves, self._sv_feats):
            uniq, inv = np.unique(keys, return_inverse=True)
            W = np.bincount(inv.ravel(), weights=coef[owner] * g[owner] * phi, minlength=len(uniq))
            if hasattr(leaf, "transform_weights"):  # gapped k-mers: l-mer weights
                uniq, W = leaf.transform_weights(uniq, W)
            weights.append((uniq, W))
        return weights

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _features(leaf, occ, n, enc=None):
        """``(owner, key, phi, q, raw)`` per distinct (object, feature) plus
        the squared norms ``q`` (n,) and the occurrences' group ``inverse``."""
        owner, keys, raw, inverse = group(occ.owner, occ.keys, occ.vals, n)
        phi = (raw != 0).astype(np.float64) if leaf.presence else raw
        q = leaf.norms(enc) if hasattr(leaf, "norms") else None
        if q is None:  # else k(x, x) is not a sum of squared features
            q = np.bincount(owner, weights=phi * phi, minlength=n)
        return owner, keys, phi, q, (raw, inverse)

    @property
    def unit(self):
        units = {leaf.unit for leaf in self.leaves} - {None}
        return units.pop() if units else None

    def name_labels(self, node=None, edge=None):
        """Write graph labels by name in feature names: ``node`` and
        ``edge`` map label values to names (a TU dataset's README gives them,
        :func:`structk.datasets.tu_label_names`), so that MUTAG's
        ``t=1: 0(0,1)`` reads ``t=1: C(C,N)``. Labels missing from a map are
        written as they are. Returns the explainer.

        Examples
        --------
        >>> from structk.datasets import bundled_path, load_tu
        >>> from structk.kernels import WeisfeilerLehman
        >>> from structk.learners import KernelSVM
        >>> graphs, y = load_tu(bundled_path("graph_families"))
        >>> model = KernelSVM(kernel=WeisfeilerLehman(h=1), C=1).fit(graphs, y)
        >>> ex = Explainer(model).name_labels({0: "C", 1: "N", 2: "O"})
        >>> any("C" in name for name, _ in ex.feature_weights(3))
        True
        """
        for leaf in self.leaves:
            if leaf.unit == "node":
                leaf.label_names, leaf.edge_names = node, edge
        return self

    # -------------------------------------------------------- the weights
    def feature_weights(self, top=20):
        """The features with the largest positive and negative weights.

        Returns a list of ``(name, weight)`` pairs: the ``top`` most
        positive, then the ``top`` most negative (fewer when there are
        fewer), for the weights ``W`` of the module docstring. With a
        normalised kernel the contribution of a feature to ``f(x)`` is
        ``W_u phi_u(x) / ||phi(x)||``, so weights compare features within
        one object's norm. With several kernels summed, names are prefixed
        by the kernel.
        """
        cand = []
        for i, (keys, W) in enumerate(self._weights):
            W = _weights_at(self.leaves[i], keys, W, keys)
            for sign in (1, -1):
                v = sign * W
                take = np.flatnonzero(v > 0)
                if len(take) > top:
                    take = take[np.argpartition(-v[take], top - 1)[:top]]
                cand.extend((sign, float(W[j]), i, int(keys[j])) for j in take)
        pos = sorted((c for c in cand if c[0] > 0), key=lambda c: -c[1])[:top]
        neg = sorted((c for c in cand if c[0] < 0), key=lambda c: c[1])[:top]
        prefix = len([x for x in self.leaves if x.unit is not None]) > 1
        return [(self._name(i, key, prefix), w) for _, w, i, key in pos + neg]

    def _name(self, i, key, prefix=False):
        leaf = self.leaves[i]
        if leaf.unit == "node":
            name = leaf.names([key], self._sv_enc[i], self._sv_occ[i])[0]
        else:
            name = leaf.names([key])[0]
        return f"{leaf.kernel!r}: {name}" if prefix else name

    def weight_of(self, name_or_key, leaf=0):
        """The weight of one feature of leaf ``leaf`` by key (0 when absent)."""
        keys, W = self._weights[leaf]
        return float(_weights_at(self.leaves[leaf], keys, W, np.array([name_or_key]))[0])

    # ------------------------------------------------------ contributions
    def contributions(self, X, edges=False):
        """Per-position / per-node contributions of each object of ``X``.

        Parameters
        ----------
        X : list of sequences or graphs
        edges : bool, default False
            For graph models: split each feature's term over the nodes
            *and edges* it is made of instead of its nodes alone, and
            return the edges' part in ``edge_scores``. A Weisfeiler-Lehman
            subtree (or optimal-assignment) feature rooted at ``v`` after
            ``t`` iterations is shared equally by the vertices and edges
            of its unfolding tree (walks of length ``<= t`` from ``v`` and
            their steps), each credited to the node or edge it copies; a
            shortest-path feature of the pair ``(u, v)`` at distance ``d``
            equally by ``u``, ``v`` and the ``d`` edges of a shortest path,
            averaged over all shortest ``u``-``v`` paths.

        Returns
        -------
        list of :class:`Explanation`
            One per object; ``bias + scores.sum()`` (plus
            ``edge_scores.sum()`` with ``edges=True``) is the decision value.
        """
        if not self.unit:
            raise NoExplicitFeaturesError("the kernel has no features at positions or nodes")
        if edges and self.unit != "node":
            raise ValueError(f"edges=True is for graph models; this model explains {self.unit}s")
        scores, bias, decision, unit_ptr, encs, edge_part = self._contributions(X, edges)
        out = []
        for i in range(len(decision)):
            e = Explanation(
                scores[unit_ptr[i] : unit_ptr[i + 1]],
                float(bias[i]),
                float(decision[i]),
                self._units(encs, i),
            )
            if edges:
                edge_scores, edge_ptr = edge_part
                graph = next(
                    enc for leaf, enc in zip(self.leaves, encs) if leaf.unit == "node"
                ).graphs[i]
                e.edges = list(graph.edges)
                e.edge_scores = edge_scores[edge_ptr[i] : edge_ptr[i + 1]]
            out.append(e)
        return out

    def decision_function(self, X):
        """``f(x)`` recomputed from the feature weights (equals the model's)."""
        return self._contributions(X)[2]

    def _contributions(self, X, edges=False):
        from .._validation import check_objects

        X = check_objects(X, "X")
        if self._expr is not None:
            return self._path_contributions(X, edges)
        return self._linear_contributions(X, self._weights, edges)

    def _path_contributions(self, X, edges=False):
        """Integrated gradients of ``f(x) = b + sum_i c_i F(k(x, s_i))`` along
        ``t Phi(x)``, ``t`` from 0 to 1 (:mod:`._nonlinear`): each block's
        linear decomposition with the object's coefficients ``c_i int_0^1
        dF/dk_j(t k(x, s_i)) dt``, plus ``f(0) = b + sum_i c_i F(0)`` in the
        bias."""
        K = [np.asarray(b.kernel(X, self._sv_objects), dtype=np.float64) for b in self._blocks]
        A, F0, _ = _nonlinear.path_coefficients(self._expr, K)
        parts = []
        for j in range(len(X)):
            total = None
            for block, a in zip(self._blocks, A):
                p = block._linear_contributions([X[j]], block._collapse(self._coef * a[j]), edges)
                total = p if total is None else _add_parts(total, p)
            parts.append(total)
        base = self.intercept + float(self._coef @ F0[0]) if len(X) else self.intercept
        scores = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0)
        bias = np.array([float(p[1][0]) for p in parts]) + base
        decision = np.array([float(p[2][0]) for p in parts]) + base
        unit_ptr = np.zeros(len(X) + 1, np.int64)
        np.cumsum([p[3][-1] for p in parts], out=unit_ptr[1:])
        encs = [leaf.encode(X, "X") for leaf in self.leaves]
        edge_part = None
        if edges:
            edge_ptr = np.zeros(len(X) + 1, np.int64)
            np.cumsum([p[5][1][-1] for p in parts], out=edge_ptr[1:])
            edge_part = (np.concatenate([p[5][0] for p in parts]), edge_ptr)
        return scores, bias, decision, unit_ptr, encs, edge_part

    def _linear_contributions(self, X, weights, edges=False):
        n = len(X)
        encs = [leaf.encode(X, "X") for leaf in self.leaves]
        occs = [leaf.occurrences(e) for leaf, e in zip(self.leaves, encs)]
        feats = [self._features(leaf, occ, n, e) for leaf, occ, e in zip(self.leaves, occs, encs)]
        gam = _tree.gammas(self.tree, [f[3] for f in feats])
        first = next((i for i, leaf in enumerate(self.leaves) if leaf.unit is not None), None)
        sizes = (
            np.zeros(n, np.int64)
            if first is None  # a constant block
            else self.leaves[first].n_units(encs[first])
        )
        unit_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(sizes, out=unit_ptr[1:])
        scores = np.zeros(int(unit_ptr[-1]))
        const = np.zeros(n)
        edge_part = None
        if edges:
            n_edges = (
                np.zeros(n, np.int64) if first is None else self.leaves[first].n_edges(encs[first])
            )
            edge_ptr = np.zeros(n + 1, np.int64)
            np.cumsum(n_edges, out=edge_ptr[1:])
            edge_part = (np.zeros(int(edge_ptr[-1])), edge_ptr)
        for leaf, enc, occ, (_, keys, phi, _, (raw, inv)), g, (wk, W) in zip(
            self.leaves, encs, occs, feats, gam, weights
        ):
            term = _weights_at(leaf, wk, W, keys) * phi  # W_u phi_u per (object, feature)
            share = np.divide(
                term[inv] * occ.vals, raw[inv], out=np.zeros(len(occ)), where=raw[inv] != 0
            )
            amounts = g[occ.owner] * share
            if edges and leaf.unit == "node":
                node_part, edge_scores = leaf.node_edge_split(enc, occ, amounts)
                scores += node_part
                edge_part[0][:] += edge_scores
            else:
                scores += spread(occ, amounts, n, unit_ptr)
            loose = ~(occ.units >= 0).any(axis=1)
            const += np.bincount(occ.owner[loose], weights=amounts[loose], minlength=n)
        bias = self.intercept + const
        unit_owner = np.repeat(np.arange(n), sizes)
        decision = bias + np.bincount(unit_owner, weights=scores, minlength=n)
        if edges:
            edge_owner = np.repeat(np.arange(n), np.diff(edge_part[1]))
            decision += np.bincount(edge_owner, weights=edge_part[0], minlength=n)
        return scores, bias, decision, unit_ptr, encs, edge_part

    def _units(self, encs, i):
        for leaf, enc in zip(self.leaves, encs):
            if leaf.unit == "position":
                return [str(leaf.symbols[c]) if c < leaf.A else "?" for c in enc[i].tolist()]
            if leaf.unit == "node":
                return list(enc.orders[i])
        return []

    # ------------------------------------------------------- mutagenesis
    def _sequence_leaves(self):
        if any(leaf.unit == "node" for leaf in self.leaves):
            raise TypeError("in-silico mutagenesis is for sequence models, not graphs")
        seq = [leaf for leaf in self.leaves if leaf.unit == "position"]
        symbols = {tuple(leaf.symbols) for leaf in seq}
        if len(symbols) != 1:
            raise ValueError("the kernels of this model use different alphabets")
        return seq[0]

    def ism(self, sequence, hypothetical=False):
        """Change of the decision value for every single-symbol substitution.

        Parameters
        ----------
        sequence : str or sequence of symbols
        hypothetical : bool, default False
            Also return the hypothetical contributions (see
            :meth:`hypothetical`).

        Returns
        -------
        delta : ndarray (L, A)
            ``f(mutant) - f(sequence)`` for the symbol of column ``a`` (in
            the order of the kernel's alphabet) at position ``p``; 0 where
            ``a`` is the sequence's own symbol.
        """
        first = self._sequence_leaves()
        if self._expr is not None:  # not linear in the features: recompute mutants
            if hypothetical:
                raise NoExplicitFeaturesError(
                    f"{self.kernel!r} is not linear in the features: no hypothetical "
                    "contributions (structk.explain.ism recomputes the mutants)"
                )
            from .api import _ism_by_prediction

            return _ism_by_prediction(self.model, sequence, self.output, None)
        A = first.A
        codes = first.encode([sequence], "sequence").codes
        L = len(codes)
        pos = np.repeat(np.arange(L, dtype=np.int64), A)
        sym = np.tile(np.arange(A, dtype=np.int64), L)
        mutate = sym != codes[pos]
        pos, sym = pos[mutate], sym[mutate]
        m = len(pos)
        S = np.zeros((len(self.leaves), m))
        Q = np.zeros((len(self.leaves), m))
        S0 = np.zeros(len(self.leaves))
        Q0 = np.zeros(len(self.leaves))
        hyp_parts = []
        for t, (leaf, (wk, W)) in enumerate(zip(self.leaves, self._weights)):
            own = leaf.encode([sequence], "sequence") if leaf.unit else None
            res = _window_deltas(
                leaf, codes if own is None else own.codes, pos, sym, wk, W, hypothetical
            )
            S0[t], Q0[t], dS, dQ = res[:4]
            S[t] = S0[t] + dS
            Q[t] = Q0[t] + dQ
            hyp_parts.append(res[4])
        g0 = _tree.gammas(self.tree, list(Q0[:, None]))
        f0 = self.intercept + sum(float(g[0]) * s for g, s in zip(g0, S0))
        gm = _tree.gammas(self.tree, list(Q))
        fm = self.intercept + sum(g * s for g, s in zip(gm, S))
        delta = np.zeros((L, A))
        delta[pos, sym] = fm - f0
        if not hypothetical:
            return delta
        hyp = np.zeros((L, A))
        for g, part in zip(gm, hyp_parts):
            if part is not None:
                hyp[pos, sym] += g * part
        actual = self.contributions([sequence])[0].scores
        known = codes < A
        hyp[np.flatnonzero(known), codes[known]] = actual[known]
        return delta, hyp

    def hypothetical(self, sequence):
        """GkmExplain's hypothetical contributions, ``(L, A)``.

        Entry ``[p, a]`` is the contribution position ``p`` would have (in
        the sense of :meth:`contributions`) if it held symbol ``a``, the
        rest of the sequence unchanged; at the sequence's own symbol it is
        the actual contribution.
        """
        return self.ism(sequence, hypothetical=True)[1]


def _window_deltas(leaf, codes, pos, sym, wk, W, hypothetical):
    """For one leaf and one sequence: ``S0 = <W, phi>``, ``Q0 = ||phi||^2``
    and their changes for each substitution ``(pos[j], sym[j])``, from the
    occurrences in a window of ``2 span - 1`` symbols around the position
    (the only ones a substitution can change), and the hypothetical
    contribution of the substituted position before the factor gamma."""
    L = len(codes)
    m = len(pos)
    offsets = np.array([0, L], dtype=np.int64)
    occ = leaf.table(codes, offsets, np.zeros(1, np.int64))
    owner, keys, raw, inverse = group(occ.owner, occ.keys, occ.vals, 1)
    phi = (raw != 0).astype(np.float64) if leaf.presence else raw
    Wx = _weights_at(leaf, wk, W, keys)
    gkm = hasattr(leaf, "norm_deltas")
    shifted = bool(getattr(leaf, "shift", 0))  # weighted degree with shifts
    S0 = float(Wx @ phi)
    Q0 = (
        float(leaf.norms(leaf.encode([codes_text(leaf, codes)]))[0])
        if gkm or shifted
        else float(phi @ phi)
    )
    if m == 0:
        return S0, Q0, np.zeros(0), np.zeros(0), np.zeros(0)
    span = int(leaf.span)
    lo = np.maximum(pos - span + 1, 0)
    hi = np.minimum(pos + span, L)
    lengths = hi - lo
    woff = np.zeros(m + 1, np.int64)
    np.cumsum(lengths, out=woff[1:])
    idx = np.repeat(lo - woff[:-1], lengths) + np.arange(woff[-1], dtype=np.int64)
    ref = codes[idx]
    mut = ref.copy()
    mut[woff[:-1] + (pos - lo)] = sym
    extra = {"full_lengths": np.full(m, L)} if gkm else {}
    old = leaf.table(ref, woff, lo, **extra)
    new = leaf.table(mut, woff, lo, **extra)
    # net change of each (mutation, feature)
    o2, k2, d2, inv2 = group(
        np.concatenate([new.owner, old.owner]),
        np.concatenate([new.keys, old.keys]),
        np.concatenate([new.vals, -old.vals]),
        m,
    )
    before = lookup(keys, raw, k2)
    after = before + d2
    if leaf.presence:
        gb, ga = (before != 0).astype(float), (np.abs(after) > 1e-9).astype(float)
    else:
        gb, ga = before, after
    Wk = _weights_at(leaf, wk, W, k2)
    dS = np.bincount(o2, weights=Wk * (ga - gb), minlength=m)
    if gkm:
        dQ = leaf.norm_deltas(codes, old, new, m)
    elif shifted:
        dQ = leaf.mutant_norms(codes_text(leaf, codes), pos, sym) - Q0
    else:
        dQ = np.bincount(o2, weights=ga * ga - gb * gb, minlength=m)
    part = None
    if hypothetical:
        gi = inv2[: len(new)]
        covers = (new.units == pos[new.owner][:, None]).any(axis=1)
        n_cover = (new.units >= 0).sum(axis=1)
        a, g_after = after[gi], ga[gi]
        share = np.divide(
            Wk[gi] * g_after * new.vals,
            a * n_cover,
            out=np.zeros(len(new)),
            where=(a != 0) & covers & (n_cover > 0),
        )
        part = np.bincount(new.owner, weights=share, minlength=m)
    return S0, Q0, dS, dQ, part


def codes_text(leaf, codes):
    """A sequence's symbols from its codes (unknown symbols as ``N``)."""
    return "".join(str(leaf.symbols[c]) if c < leaf.A else "N" for c in codes.tolist())


def _add_parts(p, q):
    """Two blocks' contributions to one object, added (same units)."""
    if p[3][-1] == 0:
        p, q = q, p
    scores = p[0] + (q[0] if q[3][-1] else 0.0)
    edge = None
    if p[5] is not None:
        edge = (p[5][0] + (q[5][0] if q[5][1][-1] else 0.0), p[5][1])
    return (scores, p[1] + q[1], p[2] + q[2], p[3], p[4], edge)


def _weights_at(leaf, sv_keys, W, keys):
    """The weight of each of ``keys`` (0 when absent): a look-up in the
    collapsed ``(sv_keys, W)``, or the leaf's own rule (smooth lengths)."""
    if hasattr(leaf, "weights_at"):
        return leaf.weights_at(sv_keys, W, keys)
    return lookup(sv_keys, W, keys)
