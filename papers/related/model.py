"""The text model: a paper's words to a short unit vector; related papers are near ones.

Cluster-sharpened LSA. TF-IDF over title, abstract, tasks and methods (sublinear term
frequency, unigrams and bigrams, English stop words), reduced by a truncated SVD (latent
semantic analysis). Then, `rounds` times: cluster the papers in that latent space
(k-means, `clusters` clusters, `runs` seeds), weight every term by how unevenly its
TF-IDF mass falls over the clusters (the Kullback-Leibler divergence of the term's
cluster distribution from the clusters' sizes), and fit the SVD again on the reweighted
TF-IDF. Words every kind of paper uses ("propose", "results", "state of the art") spread
evenly over the clusters and fade; words that say what a paper is about ("speech",
"graph", "segmentation") gather in a few clusters and count for more, so the latent space
sharpens around topics rather than shared phrasing. bench/related.py measures each step
against plain TF-IDF on real labelled papers (bench/README.md has the figures).

The model is fitted on a sample at archive scale (`fit_sample` papers) and then
transforms every paper in chunks; it pickles, so `compute_related --only-new` transforms
new papers with the very model their neighbours were placed by.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

# Below this many papers there is no corpus to learn from: no lists at all.
MIN_PAPERS = 3


@dataclass(frozen=True)
class Params:
    dims: int = 75  # latent dimensions (measured: 50-100 best on 2,625 papers)
    clusters: int = 20  # k-means clusters per sharpening run (measured: 16-30 alike)
    rounds: int = 3  # sharpening rounds (each: cluster, reweight terms, refit the SVD)
    runs: int = 3  # k-means seeds per round, their term weights summed (steadier)
    gamma: float = 0.75  # term weight = (divergence / largest divergence) ** gamma
    title_weight: int = 2  # the title counts this many times in a paper's text
    min_df: int = 2
    max_df: float = 0.5
    max_features: int = 2**18  # bounds the vocabulary (and the model) at archive scale
    svd_iter: int = 7
    seed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT = Params()


class EmptyCorpus(ValueError):
    """Too few papers, or no words left once stop words and rare words are dropped."""


@dataclass
class TextModel:
    params: Params
    vectorizer: TfidfVectorizer
    weights: np.ndarray  # float32, one per vocabulary term
    components: np.ndarray  # float32, dims x vocabulary

    @property
    def dims(self) -> int:
        return self.components.shape[0]

    def transform(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text); a text with no known word is a row
        of zeros, which is near nothing."""
        if not texts:
            return np.zeros((0, self.dims), np.float32)
        x = _reweight(self.vectorizer.transform(texts), self.weights)
        return normalize(np.asarray(x @ self.components.T, dtype=np.float32))


def paper_text(title: str, abstract: str, tasks=(), methods=(), title_weight: int = 1) -> str:
    """What the model reads of a paper."""
    parts = [title] * title_weight + [abstract, *tasks, *methods]
    return " . ".join(p for p in parts if p)


def fit(texts: list[str], params: Params = DEFAULT) -> TextModel:
    n = len(texts)
    if n < MIN_PAPERS:
        raise EmptyCorpus(f"{n} papers: too few to learn from")
    small = n < 50  # a handful of papers: keep every word (document-frequency cuts collide)
    vectorizer = TfidfVectorizer(
        sublinear_tf=True,
        ngram_range=(1, 2),
        stop_words="english",
        min_df=1 if small else params.min_df,
        max_df=1.0 if small else params.max_df,
        max_features=params.max_features,
        dtype=np.float32,
    )
    try:
        x = vectorizer.fit_transform(texts)
    except ValueError as exc:  # "empty vocabulary"
        raise EmptyCorpus(str(exc)) from exc
    vocabulary = x.shape[1]
    dims = max(1, min(params.dims, vocabulary - 1, n - 1))
    weights = np.ones(vocabulary, np.float32)
    svd = _svd(x, dims, params)
    z = normalize(svd.transform(x))
    clusters = min(params.clusters, n // 5)
    for round_ in range(params.rounds if clusters >= 2 else 0):
        divergence = np.zeros(vocabulary)
        for run in range(params.runs):
            seed = params.seed + 100 * round_ + run
            labels = KMeans(clusters, n_init=1, random_state=seed).fit_predict(z)
            divergence += cluster_divergence(x, labels, clusters)
        if divergence.max() <= 0:
            break
        weights = ((divergence / divergence.max()) ** params.gamma).astype(np.float32)
        xw = _reweight(x, weights)
        svd = _svd(xw, dims, params)
        z = normalize(svd.transform(xw))
    return TextModel(params, vectorizer, weights, svd.components_.astype(np.float32))


def cluster_divergence(x: sp.csr_matrix, labels: np.ndarray, k: int) -> np.ndarray:
    """Per term: KL(p(cluster | term) || p(cluster)), p(cluster | term) from the term's
    TF-IDF mass in each cluster. 0 for a term spread like the papers themselves."""
    n = x.shape[0]
    membership = sp.csr_matrix((np.ones(n, np.float32), (labels, np.arange(n))), shape=(k, n))
    mass = (membership @ x).toarray().astype(np.float64)  # k x vocabulary
    prior = np.bincount(labels, minlength=k) / n
    total = mass.sum(axis=0)
    p = mass / np.where(total > 0, total, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / prior[:, None]), 0.0)
    return terms.sum(axis=0)


def _reweight(x: sp.csr_matrix, weights: np.ndarray) -> sp.csr_matrix:
    return normalize(sp.csr_matrix(x.multiply(weights[None, :]), dtype=np.float32))


class _SVD:
    """The top `dims` right singular vectors of x (a randomized SVD, Halko et al. 2011,
    as sklearn's TruncatedSVD computes it), with cheaper linear algebra: the power
    iterations orthonormalise by Cholesky-QR twice (matrix products, both cores) where
    sklearn runs an LU factorisation of the vocabulary-long block (one core; about a third of
    a 50k-paper fit), x's transpose is kept in CSR once, and the last small SVD goes
    through the Gram matrix."""

    def __init__(self, x: sp.csr_matrix, dims: int, params: Params):
        rng = np.random.default_rng(params.seed)
        width = min(dims + 10, min(x.shape))
        xt = x.T.tocsr()
        q = rng.standard_normal((x.shape[1], width)).astype(np.float32)
        for _ in range(params.svd_iter):
            q = _orthonormal(xt @ _orthonormal(x @ q))
        y = _orthonormal(x @ q)  # n x width: a basis of x's range
        b = np.asarray((xt @ y).T)  # width x vocabulary
        gram = (b @ b.T).astype(np.float64)
        values, vectors = np.linalg.eigh(gram)
        top = np.argsort(values)[::-1][:dims]
        sigma = np.sqrt(np.maximum(values[top], 0))
        keep = sigma > sigma[0] * 1e-6 if len(sigma) else sigma > 0
        u = vectors[:, top[keep]] / sigma[keep]
        self.components_ = (u.T.astype(np.float32) @ b).astype(np.float32)

    def transform(self, x) -> np.ndarray:
        return np.asarray(x @ self.components_.T)


def _orthonormal(a: np.ndarray) -> np.ndarray:
    """An orthonormal basis of a's columns (float32): Cholesky-QR, twice for accuracy;
    a QR factorisation where the columns are (nearly) dependent."""
    a = np.asarray(a, dtype=np.float32)
    try:
        for _ in range(2):
            r = np.linalg.cholesky((a.T @ a).astype(np.float64)).T
            a = a @ np.linalg.inv(r).astype(np.float32)
    except np.linalg.LinAlgError:
        a = np.linalg.qr(a)[0].astype(np.float32)
    return a


def _svd(x, dims: int, params: Params) -> _SVD:
    return _SVD(x, dims, params)
