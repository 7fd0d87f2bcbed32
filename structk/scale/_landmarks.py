"""The ways of picking Nyström landmarks, by name.

Kept apart from :mod:`structk.scale.nystroem` (which derives from
scikit-learn's transformer classes, hence imports scikit-learn) so that a
model file's schema can name them without that import.
"""

#: ``Nystroem(landmarks=...)``, ``KernelSVM(solver="nystroem", landmarks=...)``:
#: uniform sampling, k-means++ seeding in feature space, ridge leverage scores.
LANDMARKS = ("uniform", "kmeans++", "leverage")
