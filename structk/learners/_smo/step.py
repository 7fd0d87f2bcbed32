"""The analytic two-variable step of SMO, shared by both solvers.

Plain Python, without numba: the NumPy solver calls it as it is and
:mod:`.numba_smo` compiles it.
"""


def two_variable_step(ai, aj, Gi, Gj, same_sign, quad, C):
    """Analytic solution of the two-variable subproblem, clipped to the box (LIBSVM).

    Plain Python: :mod:`.numba_smo` compiles this same function.
    """
    if not same_sign:
        delta = (-Gi - Gj) / quad
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0.0:
            if aj < 0.0:
                aj = 0.0
                ai = diff
            if ai > C:
                ai = C
                aj = C - diff
        else:
            if ai < 0.0:
                ai = 0.0
                aj = -diff
            if aj > C:
                aj = C
                ai = C + diff
    else:
        delta = (Gi - Gj) / quad
        total = ai + aj
        ai -= delta
        aj += delta
        if total > C:
            if ai > C:
                ai = C
                aj = total - C
            if aj > C:
                aj = C
                ai = total - C
        else:
            if aj < 0.0:
                aj = 0.0
                ai = total
            if ai < 0.0:
                ai = 0.0
                aj = total
    return ai, aj
