"""A deterministic synthetic Papers with Code archive, in the shapes of the real dumps.

Every generator yields plain dicts shaped exactly like one record of a real archive
file, and is a pure function of its arguments: the same ``seed`` and size give the same
rows, byte for byte, in any process. Nothing is read from the real archive; all text is
made here from word lists, a Zipf-distributed vocabulary and templates.

    paper_rows(seed, papers)            papers-with-abstracts
    link_rows(seed, papers)             links-between-papers-and-code
    method_rows(seed, methods, ...)     methods
    dataset_rows(seed, datasets, ...)   datasets
    evaluation_rows(seed, papers, rows) evaluation-tables (nested tasks)
    record_rows(seed, papers, share)    paper records in the seed-000 shape

How the parts agree without holding the archive in memory: every paper is a function of
``(seed, index)`` (its own ``random.Random`` streams, seeded by a 64-bit mix of seed,
index and a salt), so ``link_rows`` and ``record_rows`` regenerate exactly the fields
``paper_rows`` wrote. The only cross-paper facts -- which slugs need a ``-N`` suffix and
which arXiv number each paper gets -- come from one pass over the titles and dates
(``_archive_index``, ~20 s for 576k papers), kept as two arrays of 4 bytes per paper and
a dict of the few suffixed slugs; its expensive part can be drawn in parallel parts
(:func:`index_draws`) and installed in each process (:func:`install_index`). The
catalogues (tasks, methods, datasets, collections) are sized from ``papers`` by
:func:`archive_sizes`, so rows agree within one archive size; an archive of another size
is another archive. Generators cache their catalogues per process (a few tens of MB).

Text: a 30,000-word Zipf vocabulary (function words, then common ML words -- "learning"
is rank 28 -- then academic words, then made-up technical terms, shorter ones more
frequent), mixed with per-topic word lists; ~170-word abstracts, ~9-word titles, ~5% of
texts with non-ASCII, ~2% with LaTeX, a few with stray HTML.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import itertools
import math
import random
import re
import string
import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

DEFAULT_PAPERS = 576_000
SNAPSHOT = "2025-07-28"

FILE_NAMES = {
    "papers": "papers-with-abstracts",
    "links": "links-between-papers-and-code",
    "evaluation-tables": "evaluation-tables",
    "methods": "methods",
    "datasets": "datasets",
    "records": "records",
}

# Samples' statuses: the four seen so far, and the rare ones an importer must keep.
KNOWN_STATUSES = ("ran", "ran_honours", "ran_violates", "ran_draft_wrong")
RARE_STATUSES = ("timed_out",)
CONTRACT_CHECK = {
    "ran": None,
    "ran_honours": "HONOURS",
    "ran_violates": "VIOLATES",
    "ran_draft_wrong": "OUTPUT_MISDECLARED",
}
REPO_KINDS = ("official", "named_in_paper", "listed", "found_in_text", "community")

# Site constants of the paper record format, not archive text.
RECORD_ABOUT = {
    "site": "https://codewithpapers.app",
    "non_affiliation": (
        "Code with Papers and Syntology are not affiliated with, endorsed by, or sponsored "
        "by Papers with Code, Meta, or the pwc-archive mirror."
    ),
    "licence": "CC BY-SA 4.0",
    "licence_url": "https://creativecommons.org/licenses/by-sa/4.0/legalcode",
    "attribution": "https://codewithpapers.app/attribution",
    "modified": "archive material modified by Syntology; see the attribution page",
}
RECORD_SOURCE = {
    "archive": "pwc-archive (Hugging Face), CC BY-SA 4.0",
    "snapshot": SNAPSHOT,
    "licence_url": "https://creativecommons.org/licenses/by-sa/4.0/legalcode",
    "row_kind": "abstracts",
}
READ_AT_IS = "when the build read Syntology's graph, not when any sample ran"
CLAIM = (
    "Per-sample execution status on synthesized fixtures; not a correctness claim about the "
    "paper. Samples come from repositories linked to the paper, official or community; "
    "repo_kind says which."
)
REPO_KIND_VOCABULARY = {
    "official": "The archive marks this repository official for the paper",
    "named_in_paper": (
        "The archive records that the paper mentions this repository; it is not marked official"
    ),
    "listed": (
        "In the archive's code links for this paper, not marked official and not recorded as "
        "mentioned in the paper"
    ),
    "found_in_text": (
        "Syntology found this repository in the paper's own text; whether it is the authors' "
        "implementation is not asserted"
    ),
    "community": (
        "Not in the archive's code links for this paper; a community repository Syntology "
        "harvested"
    ),
}
ARCHIVE_PROVENANCE = f"external:paperswithcode_snapshot_{SNAPSHOT}"


@dataclass(frozen=True, slots=True)
class Sizes:
    """How big each part of an archive of ``papers`` papers is."""

    papers: int
    methods: int
    datasets: int
    tasks: int
    rows: int
    repos: int
    record_share: float = 0.05


def archive_sizes(papers: int = DEFAULT_PAPERS) -> Sizes:
    """Sizes scaled from the full archive (576k papers); catalogues never below ~50."""
    f = papers / DEFAULT_PAPERS
    return Sizes(
        papers=papers,
        methods=max(50, round(8_700 * f)),
        datasets=max(50, round(15_000 * f)),
        tasks=max(50, round(4_500 * f)),
        rows=max(50, round(60_000 * f)),
        repos=max(20, round(0.36 * papers)),
    )


# --- hashing and random streams ---------------------------------------------------------

_MASK = (1 << 64) - 1

# Salts: one independent stream per aspect of a paper or catalogue.
_S_ID, _S_BODY, _S_LINKS, _S_LINKS2, _S_RECORD, _S_RECORD2 = 1, 2, 3, 4, 5, 6
_S_DUP, _S_DUP_OF, _S_RETITLE, _S_ODD_DATE, _S_ARXIV = 7, 8, 9, 10, 11
_S_TASKS, _S_METHODS, _S_DATASETS, _S_COLLECTIONS, _S_EVAL = 20, 21, 22, 23, 24
_S_REPO, _S_OWNER, _S_AUTHOR = 30, 31, 32


def _mix(*parts: int) -> int:
    """A 64-bit hash of integers (splitmix64 steps): stable across runs and platforms."""
    x = 0x9E3779B97F4A7C15
    for part in parts:
        x = ((x ^ (part & _MASK)) * 0xBF58476D1CE4E5B9) & _MASK
        x ^= x >> 31
        x = (x * 0x94D049BB133111EB) & _MASK
        x ^= x >> 29
    return x


def _unit(*parts: int) -> float:
    return _mix(*parts) / 18446744073709551616.0


def _rng(*parts: int) -> random.Random:
    return random.Random(_mix(*parts))


def _zipf_cum(n: int, s: float = 1.0, q: float = 2.7) -> list[float]:
    return list(itertools.accumulate(1.0 / (r + q) ** s for r in range(n)))


def _cum(weights) -> list[float]:
    return list(itertools.accumulate(weights))


def _pick(rng: random.Random, population, cum: list[float]):
    return rng.choices(population, cum_weights=cum)[0]


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


# --- words --------------------------------------------------------------------------------

_FUNCTION_WORDS = """the of and to a in we for is on that with this as by are our an from can
which be it such have or these has at both while than into not also its their over between
without only more via through each when where how they two new however further other most all
first well even three many across under""".split()

_ML_WORDS = """data model neural network models based using method deep training learning
performance methods networks approach results proposed propose image show state-of-the-art
classification task tasks graph information problem framework features representation
algorithm dataset datasets language accuracy time large experiments novel existing efficient
different multiple prediction attention generative inference optimization detection
segmentation reinforcement policy transformer supervised unsupervised adversarial robust loss
generalization representations feature images text knowledge domain structure semantic video
temporal spatial object objects visual end-to-end scale benchmark benchmarks evaluation
significantly improve improves outperforms demonstrate effectiveness extensive achieve achieves
recent work works challenging important computational complexity agent agents reward
environment samples distribution distributions latent embedding embeddings encoder decoder
architecture architectures layer layers convolutional recurrent pretrained pre-trained
fine-tuning self-supervised contrastive labels labeled unlabeled semi-supervised transfer
few-shot zero-shot meta-learning clustering regression classifier classifiers gradient
gradients stochastic convergence theoretical bounds bound sparse low-rank matrix tensor kernel
bayesian probabilistic uncertainty estimation noise noisy robustness attack attacks defense
privacy federated clients communication speech audio signal signals sequence sequences tokens
token vocabulary translation summarization question answering dialogue retrieval search ranking
recommendation users user items nodes node edges link molecular protein medical clinical
patients diagnosis imaging scene depth point cloud pose tracking motion generation synthesis
diffusion gan vae autoencoder flow score sampling""".split()

_ACADEMIC_WORDS = """analysis system systems process function functions parameters parameter
space linear nonlinear theory empirical study studies evidence quality accurate simple
effective effectively efficiently significant substantial consistent settings setting
scenarios scenario real-world practical applications application tools design designed develop
developed introduce introduces present presents provide provides allows enables leverage
leverages exploit capture captures learn learns learned trained train evaluate evaluated
compare compared comparison baseline baselines standard previous prior limited lack common
general specific key main major critical essential crucial promising potential future open
public available code source release released human humans natural world dynamic dynamics
static global local fine coarse high low level levels order second single various variety
range number set sets size cost costs memory speed fast faster accuracy improvement
improvements gain gains error errors rate rates measure measures metric metrics value values
strategy strategies mechanism mechanisms module modules component components technique
techniques procedure solution solutions objective objectives constraint constraints
assumption assumptions property properties behavior behaviour case cases example examples
instance instances context contexts input inputs output outputs target targets source sources
step steps stage stages phase iteration iterations update updates search space spaces region
regions boundary boundaries pattern patterns trend trends factor factors effect effects impact
role roles view views aspect aspects goal goals idea ideas insight insights principle
principles concept concepts notion notions formulation formulations perspective perspectives
finally moreover furthermore specifically particular particularly respectively typically
often usually generally widely commonly highly strongly largely directly jointly simultaneously
iteratively automatically explicitly implicitly accurately robustly significantly
substantially competitive superior comparable favorable remarkable impressive notable strong
weak better best worse lower higher smaller larger longer shorter deeper wider simpler
stronger scalable flexible interpretable explainable reliable stable unstable optimal
suboptimal approximate exact discrete continuous finite infinite convex non-convex
differentiable invariant equivariant hierarchical sequential parallel distributed
decentralized centralized adaptive iterative recursive modular unified joint shared separate
independent conditional marginal prior posterior empirical synthetic realistic diverse
heterogeneous homogeneous structured unstructured multimodal cross-modal multilingual
monolingual intrinsic extrinsic implicit explicit long-term short-term long-range fine-grained
coarse-grained high-dimensional low-dimensional large-scale small-scale lightweight compact
efficient inefficient expensive cheap computationally statistically theoretically empirically
experimentally qualitatively quantitatively extensively thoroughly consistently
demonstrates shows suggests indicates reveals confirms verifies validates establishes
proves derive derives obtain obtains yield yields produce produces generate generates
construct constructs build builds combine combines integrate integrates incorporate
incorporates extend extends generalize generalizes adapt adapts transfer transfers reduce
reduces increase increases minimize minimizes maximize maximizes estimate estimates predict
predicts classify classifies detect detects identify identifies recognize recognizes segment
segments reconstruct reconstructs recover recovers align aligns match matches retrieve
retrieves rank ranks recommend recommends summarize summarizes translate translates answer
answers explain explains interpret interprets analyze analyzes investigate investigates
explore explores examine examines address addresses tackle tackles solve solves handle
handles mitigate mitigates alleviate alleviates overcome overcomes remains remain requires
require depends depend relies rely assumes assume ignores ignore neglects""".split()

_TOPIC_SPEC: tuple[dict[str, Any], ...] = (
    {
        "key": "vision",
        "weight": 30,
        "area": "Computer Vision",
        "method_area": "computer-vision",
        "words": """image images visual pixel pixels convolutional cnn backbone camera scene
        depth 3d pose video frames optical bounding boxes instance recognition tracking
        super-resolution deblurring inpainting lidar stereo rendering occlusion illumination
        texture resolution patch patches crop augmentation detector segmenter mask masks
        keypoint keypoints viewpoint radiance multi-view monocular""",
        "bases": """Image Classification|Object Detection|Semantic Segmentation|Instance
        Segmentation|Panoptic Segmentation|Pose Estimation|Depth Estimation|Optical Flow
        Estimation|Image Super-Resolution|Image Denoising|Image Deblurring|Image
        Inpainting|Person Re-Identification|Multi-Object Tracking|Action Recognition|Image
        Captioning|Scene Text Recognition|Face Recognition|3D Object Detection|Point Cloud
        Classification|Image Retrieval|Video Object Segmentation|Crowd Counting|Lane
        Detection|Image Registration|Novel View Synthesis|Image Colorization|Salient Object
        Detection|Shadow Removal|Visual Place Recognition""",
        "metrics": """Accuracy|Top-1 Accuracy|Top-5 Accuracy|mAP|AP50|AP75|box AP|mIoU|PSNR|SSIM|
        Params|GFLOPs|FPS|MOTA|IDF1|PCK|AbsRel""",
        "modalities": "Images|Videos|3D|Point cloud|RGB-D|LiDAR",
    },
    {
        "key": "nlp",
        "weight": 22,
        "area": "Natural Language Processing",
        "method_area": "natural-language-processing",
        "words": """language text texts sentence sentences word words token tokens corpus
        corpora bert gpt llm llms prompt prompts prompting instruction instructions
        linguistic syntactic lexical entity entities relation relations document documents
        passage passages query queries answer answers reasoning multilingual translation
        summarization dialogue conversational annotators annotation""",
        "bases": """Machine Translation|Question Answering|Text Classification|Sentiment
        Analysis|Named Entity Recognition|Relation Extraction|Text Summarization|Dialogue
        Generation|Natural Language Inference|Reading Comprehension|Language
        Modelling|Semantic Parsing|Coreference Resolution|Part-Of-Speech Tagging|Dependency
        Parsing|Entity Linking|Text Generation|Paraphrase Identification|Code
        Generation|Table-to-Text Generation|Open-Domain Question Answering|Fact
        Verification|Keyphrase Extraction|Text Simplification|Grammatical Error
        Correction|Word Sense Disambiguation|Hate Speech Detection|Stance Detection|Event
        Extraction|Math Word Problem Solving""",
        "metrics": """Accuracy|F1|EM|BLEU|ROUGE-1|ROUGE-2|ROUGE-L|Perplexity|METEOR|Macro-F1|
        Micro-F1|Params|BERTScore|pass@1""",
        "modalities": "Texts|Tabular",
    },
    {
        "key": "rl",
        "weight": 7,
        "area": "Reinforcement Learning",
        "method_area": "reinforcement-learning",
        "words": """reinforcement agent agents reward rewards policy policies environment
        environments exploration exploitation actor critic q-learning trajectory trajectories
        episode episodes markov mdp value-based model-based offline online planning control
        controller bandit bandits regret atari mujoco simulator""",
        "bases": """Atari Games|Continuous Control|Offline RL|Multi-Agent Reinforcement
        Learning|Imitation Learning|Inverse Reinforcement Learning|Visual Navigation|Game of
        Go|Multi-Armed Bandits|Meta Reinforcement Learning|Safe Exploration|Hierarchical
        Reinforcement Learning|Reward Shaping|Policy Evaluation|Procedural Generation""",
        "metrics": """Score|Return|Mean Human Normalized Score|Success Rate|Average Return|
        Median Human Normalized Score""",
        "modalities": "Environment|Interactive",
    },
    {
        "key": "graphs",
        "weight": 7,
        "area": "Graphs",
        "method_area": "graphs",
        "words": """graph graphs node nodes edge edges gnn gnns message passing neighborhood
        adjacency spectral subgraph subgraphs homophily heterophily community knowledge
        triples hypergraph molecule molecules topology topological""",
        "bases": """Node Classification|Link Prediction|Graph Classification|Graph
        Regression|Community Detection|Knowledge Graph Completion|Graph Generation|Molecular
        Property Prediction|Graph Clustering|Network Embedding|Graph Matching|Drug
        Discovery|Entity Alignment|Traffic Prediction""",
        "metrics": """Accuracy|Test Accuracy|Validation Accuracy|Number of params|ROC-AUC|MRR|
        Hits@10|Hits@1|MAE|AP""",
        "modalities": "Graphs",
    },
    {
        "key": "audio",
        "weight": 5,
        "area": "Speech",
        "method_area": "audio",
        "words": """speech audio acoustic spectrogram spectrograms speaker speakers phoneme
        phonemes waveform waveforms asr tts vocoder prosody utterance utterances music
        musical sound sounds noise-robust""",
        "bases": """Speech Recognition|Speaker Verification|Speech Synthesis|Speech
        Enhancement|Speech Separation|Audio Classification|Sound Event Detection|Music
        Generation|Music Transcription|Voice Conversion|Keyword Spotting|Speech Emotion
        Recognition|Audio Captioning""",
        "metrics": "WER|CER|EER|SI-SDR|PESQ|STOI|MOS|Accuracy|F1",
        "modalities": "Audio|Speech|Music",
    },
    {
        "key": "medical",
        "weight": 5,
        "area": "Medical",
        "method_area": "computer-vision",
        "words": """medical clinical patient patients diagnosis disease diseases tumor lesion
        lesions mri ct x-ray radiology pathology histopathology ecg eeg cohort hospital
        biomarkers cancer segmentation organ organs""",
        "bases": """Medical Image Segmentation|Lesion Segmentation|Tumor Classification|Disease
        Prediction|Medical Image Registration|Brain Tumor Segmentation|Skin Lesion
        Classification|Electrocardiography Classification|Mortality Prediction|Medical
        Report Generation|Cell Segmentation|Drug Response Prediction""",
        "metrics": "Dice Score|AUC|Accuracy|Sensitivity|Specificity|Hausdorff Distance|F1",
        "modalities": "Medical|Images|Biomedical|EEG",
    },
    {
        "key": "series",
        "weight": 4,
        "area": "Time Series",
        "method_area": "sequential",
        "words": """series forecasting forecast horizon seasonal trend temporal sensor sensors
        traffic weather energy demand anomaly anomalies multivariate univariate recurrent
        lstm irregular imputation""",
        "bases": """Time Series Forecasting|Time Series Classification|Anomaly Detection|Time
        Series Imputation|Change Point Detection|Activity Recognition|Traffic
        Forecasting|Load Forecasting|Irregular Time Series""",
        "metrics": "MSE|MAE|RMSE|MAPE|sMAPE|CRPS|Accuracy",
        "modalities": "Time series|Tabular",
    },
    {
        "key": "theory",
        "weight": 8,
        "area": "Methodology",
        "method_area": "general",
        "words": """optimization convex gradient descent convergence bound bounds theorem
        regret complexity sample-efficient generalization overparameterized kernel
        stochastic variance estimator estimators hyperparameter hyperparameters pruning
        quantization distillation sparsity""",
        "bases": """Hyperparameter Optimization|Neural Architecture Search|Network
        Pruning|Quantization|Knowledge Distillation|Continual Learning|Domain
        Adaptation|Active Learning|Metric Learning|Density Estimation|Causal
        Discovery|Feature Selection|AutoML|Federated Learning|Transfer Learning""",
        "metrics": "Accuracy|Test Error|Training Time|Params|Top-1 Accuracy",
        "modalities": "Tabular|Images",
    },
    {
        "key": "robotics",
        "weight": 3,
        "area": "Robotics",
        "method_area": "reinforcement-learning",
        "words": """robot robots robotic manipulation grasping locomotion navigation
        embodied sim-to-real slam odometry legged gripper trajectory planner planners
        dexterous tactile""",
        "bases": """Robotic Grasping|Robot Navigation|Visual Odometry|Motion
        Planning|Robot Manipulation|Simultaneous Localization and Mapping|Legged
        Locomotion|Embodied Question Answering""",
        "metrics": "Success Rate|SPL|Average Return|ATE|RPE",
        "modalities": "Environment|Videos|3D",
    },
    {
        "key": "security",
        "weight": 3,
        "area": "Adversarial",
        "method_area": "general",
        "words": """adversarial attack attacks perturbation perturbations robustness
        certified backdoor poisoning privacy differential membership watermark watermarking
        jailbreak defense defenses threat""",
        "bases": """Adversarial Attack|Adversarial Defense|Backdoor Attack|Membership
        Inference Attack|Out-of-Distribution Detection|Deepfake Detection|Certified
        Robustness|Model Extraction""",
        "metrics": "Robust Accuracy|Attack Success Rate|Clean Accuracy|AUROC|FPR95",
        "modalities": "Images|Texts",
    },
    {
        "key": "generative",
        "weight": 6,
        "area": "Computer Vision",
        "method_area": "computer-vision",
        "words": """generative diffusion denoising score-based gan gans vae autoregressive
        text-to-image multimodal vision-language caption captions clip latent sampler
        guidance editing synthesis photorealistic""",
        "bases": """Image Generation|Text-to-Image Generation|Video Generation|Image-to-Image
        Translation|Visual Question Answering|Image-Text Retrieval|Text-to-Video
        Generation|3D Generation|Image Editing|Visual Grounding""",
        "metrics": "FID|IS|CLIP Score|Recall@1|Recall@5|CIDEr|BLEU-4|SPICE|Accuracy",
        "modalities": "Images|Texts|Videos",
    },
    {
        "key": "recsys",
        "weight": 3,
        "area": "Miscellaneous",
        "method_area": "general",
        "words": """recommendation recommender user users item items click ranking retrieval
        collaborative filtering implicit session sessions query queries relevance
        personalization ctr""",
        "bases": """Recommendation Systems|Collaborative Filtering|Click-Through Rate
        Prediction|Session-Based Recommendation|Document Ranking|Passage Retrieval|Query
        Expansion|Sequential Recommendation""",
        "metrics": "NDCG@10|Recall@20|HR@10|MRR@10|MAP|Precision@1",
        "modalities": "Tabular|Texts|Graphs",
    },
)

_MODIFIERS = """Few-Shot|Zero-Shot|Unsupervised|Semi-Supervised|Weakly-Supervised|Self-Supervised|
Multi-Label|Fine-Grained|Real-Time|Open-Vocabulary|Cross-Domain|Long-Tailed|Continual|
Federated|Multimodal|Online|Interactive|Robust|Multilingual|Low-Resource|Document-Level|
Long-Form|Incremental|Generalized|Noisy-Label|Source-Free|Test-Time|Explainable""".split("|")
_MODIFIERS = [m.strip() for m in _MODIFIERS]

# Non-ASCII tokens, LaTeX and stray HTML of the kind the real text carries.
_UNICODE_TOKENS = """Nyström Schrödinger Fréchet Rényi Lévy Poincaré Hölder Erdős–Rényi Gödel
Kähler naïve Möbius Bézier Cramér–Rao Wasserstein–Fréchet DALL·E Zürich São
α-divergence β-VAE ℓ1-norm ℓ2 ≥ × → ± ≈ μ-parametrisation “in-context” don’t
—""".split()  # noqa: RUF001
_CJK_TOKENS = ("中文", "日本語", "한국어", "Bild网", "文本")
_LATEX_TOKENS = (
    r"$\mu$P",
    r"$\ell_1$-regularised",
    r"$O(n \log n)$",
    r"$k$-NN",
    r"$\epsilon$-greedy",
    r"$\mathcal{L}_2$",
    r"\emph{provably}",
    r"$\sqrt{T}$",
    r"$\alpha$-entmax",
    r"$\mathbb{R}^d$",
)
_HTML_FRAGMENTS = ("<b>{w}</b>", "<i>{w}</i>", "{w}<br>", "<sup>{w}</sup>")

# Morphemes for the vocabulary's long tail: made-up but plausible technical words.
_PREFIXES = """multi hyper neuro geo bio auto meta poly micro macro trans inter intra co re pre
sub super over under non semi quasi pseudo proto iso hetero omni pan para peri syn tele ortho
cyto photo electro thermo chrono morpho spectro""".split()
_ROOTS = """graph morph scal struct form duct spect tract vert ject log nom phon path therm
chron dyn lum vis cept mod plex gen lex sect fract pel port tens flect vol rupt cid sens fin
mot pos voc tact grad flux lin cod stat nect phas spher cycl clin""".split()
_SUFFIXES = """ic al ive ity ation ism er ous ize ment ness ing ed ics able ory ant ence ure
oid""".split()
_MODEL_PREFIXES = """Graph Vision Text Deep Res Dense Sparse Meta Auto Neuro Hyper Flow Mix
Swin Conv Trans Point Voxel Spec Diff Seg Det Mask Pose Depth Light Fast Tiny Mobile Effi Omni
Uni Multi Cross Co Dual Tri Pro Retro Lang Audio Wave Mol Chem Bio Med Geo Time Seq Token
Patch Pixel Frame Cell Proto Contra Prompt Instruct Chain Tree Star Nova Aura Echo""".split()
_MODEL_SUFFIXES = """Former Net Mixer GAN VAE Flow BERT GPT Diff Seg Det Match Fusion Prompt
Tune LM Rec Pose Depth Track Cap Gen Code Mamba RNN Attn Pool Norm Drop Aug Boost Hash Map
Walk Hop Lens Mind Bot""".split()
_MODEL_TAILS = ["", "", "", "", "++", "-v2", "-L", "-XL", "-B", "-S", "2", "3", "-Tiny"]

_FIRST_NAMES = """Wei Jing Li Yang Xin Hao Yu Jun Chen Lei Ming Yan Tao Ying Hui Bo Kai Rui Jie
Yi Zhe Qi Lin Peng Fei Xiao Min Ning Siyu Zihan Yuxin Haoran Jiaxin Shuai Ahmed Mohamed Ali
Omar Fatima Aisha Hassan Youssef Layla Karim Priya Rahul Arjun Ananya Vikram Sneha Rohan
Aditya Kavya Sanjay Deepak Anil Ravi Neha Pooja Amit Hiroshi Takeshi Yuki Haruto Sakura Kenji
Akira Naoki Riku Aoi Min-jun Seo-yeon Ji-ho Hye-jin Dong-hyun John Michael David James Robert
Mary Jennifer Sarah Emily Daniel Andrew Matthew Christopher Jessica Laura Thomas Anna Maria
Peter Paul Mark Lucas Julia Sophie Emma Oliver Noah Liam Ethan Chloe Alice Olivia Hannah Jakob
Lukas Felix Jonas Lena Katharina Maximilian Jürgen Björn Sören Jörg Günter Matthias Stefan
François Hélène Léa Chloé Étienne Jérôme Céline Noémie Amélie Raphaël Pierre Nicolas
Alejandro José María Lucía Sofía Javier Andrés Martín Sebastián Valentina Camila Joaquín
Ramón Inés João Gonçalo Beatriz Tomás Giulia Marco Luca Alessandro Francesca Matteo Chiara
Lorenzo Andrea Davide Ivan Dmitry Sergey Alexei Olga Natalia Ekaterina Anastasia Mikhail
Yevgeny Łukasz Paweł Michał Katarzyna Agnieszka Wojciech Zoë Søren Mikkel Astrid Ingrid Sigrid
Nils Çağlar Mehmet Ayşe Emre Zeynep Kerem Nguyen Thanh Minh Huy Linh Anh Trang Somchai Arash
Reza Maryam Sara Nima Elif Tiago Rafael Gabriel Bruno Felipe Diego Kofi Ama Chinedu Ngozi
Tunde Amara Sipho Thabo""".split()
_LAST_NAMES = """Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin
Luo Gao Zheng Liang Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang
Yu Du Ye Cheng Wei Su Lu Ding Ren Shen Yao Kumar Singh Sharma Gupta Patel Reddy Rao Iyer Nair
Mehta Joshi Agarwal Banerjee Chatterjee Das Sato Suzuki Takahashi Tanaka Watanabe Ito
Yamamoto Nakamura Kobayashi Kato Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim Smith Johnson
Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Jackson Martin White
Harris Clark Lewis Walker Hall Allen Young King Wright Scott Green Baker Adams Nelson Hill
Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris
Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch Bauer
Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Krüger Hofmann Lange Dubois Durand
Lefèvre Moreau Laurent Simon Michel Garçon Bernard Petit Roux Fournier Girard Bonnet Mercier
García Rodríguez González Fernández López Martínez Sánchez Pérez Gómez Díaz Álvarez Romero
Ruiz Hernández Jiménez Muñoz Silva Santos Oliveira Souza Pereira Costa Ferreira Rossi Russo
Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti Ivanov Smirnov
Kuznetsov Popov Sokolov Lebedev Kozlov Novak Kowalski Nowak Wiśniewski Wójcik Kamiński
Lewandowski Zieliński Jensen Nielsen Hansen Pedersen Andersen Larsen Johansson Karlsson
Nilsson Eriksson Lindqvist Virtanen Korhonen Yılmaz Kaya Demir Şahin Çelik Öztürk Nguyen Tran
Pham Hoang Phan Vu Vo Dang Bui Do Ahmadi Hosseini Mohammadi Rezaei Karimi Hassan Ibrahim
Mahmoud Khalil Haddad Okafor Adeyemi Mensah Owusu Dlamini Nkosi Cohen Levi Mizrahi Friedman
Katz Shapiro Goldberg Rosen O'Brien O'Connor Murphy Kelly Byrne Ryan Walsh McCarthy""".split()  # noqa: RUF001


def _morpheme_word(rng: random.Random) -> str:
    roll = rng.random()
    root = rng.choice(_ROOTS)
    if roll < 0.6:
        return rng.choice(_PREFIXES) + root + rng.choice(_SUFFIXES)
    if roll < 0.8:
        return root + "o" + rng.choice(_ROOTS) + rng.choice(_SUFFIXES)
    if roll < 0.88:
        return root + rng.choice(_SUFFIXES)
    if roll < 0.94:
        return rng.choice(_PREFIXES) + root + "o" + rng.choice(_ROOTS) + rng.choice(_SUFFIXES)
    return rng.choice(_PREFIXES) + "-" + root + rng.choice(_SUFFIXES)


@functools.cache
def _pseudo_words(n: int) -> tuple[str, ...]:
    """n distinct made-up words (rare technical terms), the same in every process."""
    rng = random.Random(0x5EED_0F_50BD)
    known = set(_FUNCTION_WORDS) | set(_ML_WORDS) | set(_ACADEMIC_WORDS)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        roll = rng.random()
        if roll < 0.06:
            word = rng.choice(_MODEL_PREFIXES) + rng.choice(_MODEL_SUFFIXES)
        elif roll < 0.09:
            word = _morpheme_word(rng) + "-" + rng.choice(_ROOTS) + rng.choice(_SUFFIXES)
        else:
            word = _morpheme_word(rng)
        if len(word) < 3 or word in seen or word in known:
            continue
        seen.add(word)
        out.append(word)
    return tuple(out)


def _by_length(words, seed: int) -> list[str]:
    """Shorter words first, loosely: frequent words are short (Zipf's abbreviation law)."""
    rng = random.Random(seed)
    return sorted(words, key=lambda w: len(w) + rng.random() * 8)


@dataclass(slots=True)
class _Topic:
    key: str
    area: str
    method_area: str
    weight: float
    words: tuple[str, ...]
    bases: tuple[str, ...]
    metrics: tuple[str, ...]
    modalities: tuple[str, ...]
    population: tuple[str, ...]  # the global vocabulary + this topic's words
    cum: list[float]  # cumulative weights over population
    content: tuple[str, ...]  # content words of this topic (titles, names)


_VOCAB_SIZE = 30_000
_TOPIC_SHARE = 0.15  # share of words drawn from the topic's own list


def _split(text: str, sep: str | None = None) -> tuple[str, ...]:
    items = text.split(sep) if sep else text.split()
    return tuple(" ".join(item.split()) for item in items if item.strip())


@functools.cache
def _language() -> tuple[tuple[str, ...], tuple[_Topic, ...], frozenset[str]]:
    """The global vocabulary (Zipf ranked) and the topics; built once per process."""
    ranked: list[str] = []
    fw, ml = list(_FUNCTION_WORDS), list(_ML_WORDS)
    ranked += fw[:13]  # "the of and ..." lead, as in real abstracts
    rest_fw = fw[13:]
    while rest_fw or ml:
        if ml:
            ranked.append(ml.pop(0))
        if rest_fw:
            ranked.append(rest_fw.pop(0))
        if ml:
            ranked.append(ml.pop(0))
    ranked += _ACADEMIC_WORDS
    seen: set[str] = set()
    vocab = [w for w in ranked if not (w in seen or seen.add(w))]
    made_up = _pseudo_words(_VOCAB_SIZE + 12 * 120)
    tail = _VOCAB_SIZE - len(vocab)
    vocab += _by_length(made_up[:tail], 0x7A11)
    vocab_t = tuple(vocab)
    global_w = [1.0 / (r + 2.7) ** 1.15 for r in range(len(vocab_t))]
    global_total = sum(global_w)
    functional = frozenset(_FUNCTION_WORDS)
    topics = []
    extra = made_up[tail:]  # topic-only rare terms
    for t, spec in enumerate(_TOPIC_SPEC):
        words = _split(spec["words"]) + extra[t * 120 : (t + 1) * 120]
        topic_w = [1.0 / (r + 6.0) ** 0.9 for r in range(len(words))]
        scale = global_total * _TOPIC_SHARE / (1 - _TOPIC_SHARE) / sum(topic_w)
        population = vocab_t + words
        cum = _cum(global_w + [w * scale for w in topic_w])
        content = tuple(w for w in words if w not in functional)
        topics.append(
            _Topic(
                key=spec["key"],
                area=spec["area"],
                method_area=spec["method_area"],
                weight=spec["weight"],
                words=words,
                bases=_split(spec["bases"], "|"),
                metrics=_split(spec["metrics"], "|"),
                modalities=_split(spec["modalities"], "|"),
                population=population,
                cum=cum,
                content=content,
            )
        )
    return vocab_t, tuple(topics), functional


# --- text -----------------------------------------------------------------------------------

_SMALL = frozenset("a an the of for in on with via and or to at by from is".split())
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _title_word(word: str, first: bool) -> str:
    if not first and word in _SMALL:
        return word
    if not word.islower():  # acronyms, CamelCase, symbols: as they are
        return word
    if "-" not in word:
        return word[:1].upper() + word[1:]
    return "-".join(_cap(part) if part not in _SMALL else part for part in word.split("-"))


def slugify(text: str, max_length: int = 50) -> str:
    """A Papers-with-Code-like slug: ASCII, lower case, hyphens, cut at a word boundary.

    The result never ends in a number, so the ``-N`` suffix that disambiguates a repeated
    slug can never produce another paper's plain slug.
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")
    if len(slug) > max_length:
        cut = slug[: max_length + 1]
        slug = cut[: cut.rfind("-")] if "-" in cut else slug[:max_length]
    tokens = slug.split("-")
    while tokens and tokens[-1].isdigit():
        tokens.pop()
    return "-".join(tokens) or "paper"


def _name_slug(name: str) -> str:
    """The slug of a task, method or dataset name (numbers kept: "coco-2017")."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")[:255]


class _Text:
    """Text made from one topic's word distribution with one random stream."""

    __slots__ = ("functional", "rng", "topic")

    def __init__(self, rng: random.Random, topic: _Topic, functional: frozenset[str]):
        self.rng, self.topic, self.functional = rng, topic, functional

    def words(self, k: int) -> list[str]:
        return self.rng.choices(self.topic.population, cum_weights=self.topic.cum, k=k)

    def content_words(self, k: int) -> list[str]:
        functional = self.functional
        out = [w for w in self.words(k * 2 + 2) if w not in functional]
        while len(out) < k:
            out.append(self.rng.choice(self.topic.content))
        return out[:k]

    def model_name(self) -> str:
        rng = self.rng
        if rng.random() < 0.25:
            letters = "".join(w[0] for w in self.content_words(rng.randint(3, 5)))
            return letters.upper() + rng.choice(_MODEL_TAILS)
        return rng.choice(_MODEL_PREFIXES) + rng.choice(_MODEL_SUFFIXES) + rng.choice(_MODEL_TAILS)

    def sentences(self, n_words: int, opener: bool = True) -> str:
        """About n_words words of sentences ending in full stops."""
        rng = self.rng
        words = self.words(n_words)
        out = []
        pos = 0
        lead = rng.choice(_OPENERS) if opener and rng.random() < 0.45 else ""
        while pos < n_words:
            length = rng.randint(9, 30)
            chunk = words[pos : pos + length]
            pos += length
            if len(chunk) < 4 and out:
                out[-1] = out[-1][:-1] + " " + " ".join(chunk) + "."
                continue
            if len(chunk) > 8 and rng.random() < 0.4:
                k = rng.randint(3, len(chunk) - 3)
                chunk[k] += ","
            if lead:
                chunk.insert(0, lead)
                lead = ""
            else:
                chunk[0] = _cap(chunk[0])
            out.append(" ".join(chunk) + ".")
        return " ".join(out)


_OPENERS = (
    "In this paper, we",
    "In this work, we",
    "We propose",
    "We present",
    "We study",
    "This paper introduces",
    "Recent advances in",
    "Despite the success of",
)

_TITLE_TEMPLATES = (
    ("{X}: {W} {W} {W} {W} for {T}", 6),
    ("{W} {W} {W} {W} for {W} {T}", 8),
    ("{W} {W} {W} {W} with {W} {W} {W}", 6),
    ("Towards {W} {W} {W} {W} in {T}", 3),
    ("On the {W} of {W} {W} {W} in {W} {W} {W}", 3),
    ("{V} {W} {W} {W} for {W} {T}", 5),
    ("{X}: {V} {W} {W} {W} via {W} {W} {W}", 3),
    ("{W} {W} {W} via {W} {W} {W} for {T}", 4),
    ("{W} and {W} {W} {W} for {W} {T}", 3),
    ("A {W} {W} {W} {W} for {T} with {W} {W}", 4),
    ("{W} {W}: A {W} {W} {W} {W} for {T}", 3),
    ("When {W} {W} Meets {W} {W}: {W} {W} for {T}", 1),
    ("{V} {W} {W} {W} with {W} {W} and {W} {W} {W}", 3),
    ("{X}: {W} {W} {W} {W} {W} of {W} {W} {W}", 3),
)
_TITLE_CUM = _cum(w for _, w in _TITLE_TEMPLATES)
_TITLE_VERBS = tuple(
    "Learning Improving Scaling Rethinking Revisiting Understanding Boosting Exploring Bridging "
    "Unifying Training Benchmarking".split()
)


def _make_title(text: _Text, task_name: str | None) -> str:
    rng = text.rng
    template = rng.choices(_TITLE_TEMPLATES, cum_weights=_TITLE_CUM)[0][0]
    words = iter(text.content_words(template.count("{W}")))
    parts = []
    for token in template.split():
        if "{W}" in token:
            parts.append(token.replace("{W}", next(words)))
        elif "{T}" in token:
            parts.append(task_name or next(iter(text.content_words(1))))
        elif "{X}" in token:
            parts.append(token.replace("{X}", text.model_name()))
        elif "{V}" in token:
            parts.append(rng.choice(_TITLE_VERBS))
        else:
            parts.append(token)
    title = " ".join(parts).split()
    if rng.random() < 0.75:
        title = [_title_word(w, i == 0) for i, w in enumerate(title)]
    else:
        title[0] = _cap(title[0])
    roll = rng.random()
    if roll < 0.012:
        title.insert(rng.randrange(1, len(title) + 1), rng.choice(_UNICODE_TOKENS))
    elif roll < 0.015:
        title.insert(rng.randrange(1, len(title) + 1), rng.choice(_LATEX_TOKENS))
    return " ".join(title)


def _decorate(text: str, rng: random.Random) -> str:
    """Non-ASCII, LaTeX and stray HTML in a small share of texts, as in the real archive."""
    roll = rng.random()
    if roll >= 0.065:
        return text
    words = text.split(" ")
    at = rng.randrange(len(words))
    if roll < 0.04:
        token = rng.choice(_UNICODE_TOKENS) if rng.random() < 0.9 else rng.choice(_CJK_TOKENS)
        words.insert(at, token)
    elif roll < 0.062:
        words.insert(at, rng.choice(_LATEX_TOKENS))
    else:
        words[at] = rng.choice(_HTML_FRAGMENTS).format(w=words[at])
    return " ".join(words)


# --- people and places --------------------------------------------------------------------

_AUTHOR_POOL = 200_000
_AUTHOR_COUNTS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
_AUTHOR_COUNT_CUM = _cum((6, 14, 18, 18, 14, 10, 7, 5, 4, 4))


@functools.cache
def _author_cum() -> list[float]:
    return _zipf_cum(_AUTHOR_POOL, 1.0, 200.0)


def _author_name(seed: int, rank: int) -> str:
    """The author at popularity rank ``rank``: a bijection onto first x last names."""
    nf, nl = len(_FIRST_NAMES), len(_LAST_NAMES)
    space = nf * nl
    s = (rank * 7_919 + _mix(seed, _S_AUTHOR) % space) % space
    first, last = _FIRST_NAMES[s % nf], _LAST_NAMES[s // nf]
    if rank >= space:  # a pool larger than the name space: keep names distinct
        return f"{first} {chr(65 + rank // space % 26)}. {last}"
    if s % 11 == 0:
        return f"{first} {chr(65 + (s // 11) % 26)}. {last}"
    return f"{first} {last}"


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


_FRAMEWORKS = ("pytorch", "tf", "none", "jax", "mxnet", "paddle", "mindspore", "caffe2", "torch")
_FRAMEWORK_CUM = _cum((55, 18, 15, 4, 2, 2, 1.5, 0.5, 0.5))
_LANGUAGES = ("python", "cpp", "javascript", "typescript", "julia", "r", "java", "go", "rust")
_LANGUAGE_CUM = _cum((80, 4, 3, 2, 3, 2, 2, 2, 2))
_EXTENSIONS = {
    "python": ".py",
    "cpp": ".cpp",
    "javascript": ".js",
    "typescript": ".ts",
    "julia": ".jl",
    "r": ".R",
    "java": ".java",
    "go": ".go",
    "rust": ".rs",
}
_SPDX = (
    "MIT",
    "Apache-2.0",
    "BSD-3-Clause",
    "GPL-3.0",
    None,
    "NOASSERTION",
    "BSD-2-Clause",
    "CC-BY-4.0",
    "AGPL-3.0",
    "LGPL-2.1",
)
_SPDX_CUM = _cum((40, 24, 8, 7, 12, 3, 2, 2, 1, 1))
_PERMISSIVE = frozenset({"MIT", "Apache-2.0", "BSD-3-Clause", "BSD-2-Clause", "CC-BY-4.0"})
_REACH = ("ok", "not_found", "error", "private")
_REACH_CUM = _cum((92, 5, 2, 1))


@functools.cache
def _repo_words() -> tuple[str, ...]:
    vocab, _, functional = _language()
    words = [
        w
        for w in vocab[:3000]
        if w not in functional and w.isascii() and w.isalpha() and w.islower() and len(w) > 2
    ]
    return tuple(words[:600])


@dataclass(frozen=True, slots=True)
class _Repo:
    index: int
    owner: str
    name: str
    framework: str
    language: str
    reach: str
    spdx: str | None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.owner}/{self.name}"

    @property
    def reach_obj(self) -> dict[str, Any]:
        return {"status": self.reach, "spdx": self.spdx}


@functools.lru_cache(maxsize=4096)  # popular repositories recur; the rest are cheap
def _repo(seed: int, index: int, pool: int) -> _Repo:
    """Repository ``index`` of the pool: its URL is unique by construction."""
    words = _repo_words()
    n = len(words)
    space = n * n
    q, rem = divmod(index, space)
    s = (rem * 104_729 + _mix(seed, _S_REPO) % space) % space
    a, b = words[s % n], words[s // n]
    style = _mix(seed, _S_REPO, index) % 10
    if style < 5:
        name = f"{a}-{b}"
    elif style < 8:
        name = _cap(a) + _cap(b)
    elif style < 9:
        name = f"{a}_{b}"
    else:
        name = f"{a}-{b}-pytorch"
    if q:
        name += str(q + 1)
    rng = _rng(seed, _S_OWNER, index)
    owner_rank = int(max(10, pool // 3) * rng.random() ** 2.2)
    person = _ascii(_author_name(seed, owner_rank)).replace("'", "").split()
    first, last = person[0].lower(), person[-1].lower()
    ostyle = owner_rank % 6
    if ostyle == 0:
        owner = first + last
    elif ostyle == 1:
        owner = first[0] + last
    elif ostyle == 2:
        owner = f"{last}-lab"
    elif ostyle == 3:
        owner = f"{words[owner_rank % n]}-{rng.choice(('ai', 'research', 'group', 'ml'))}"
    elif ostyle == 4:
        owner = f"{first}-{last}"
    else:
        owner = f"{first}{last}{owner_rank % 97}"
    reach = _pick(rng, _REACH, _REACH_CUM)
    return _Repo(
        index=index,
        owner=owner,
        name=name,
        framework=_pick(rng, _FRAMEWORKS, _FRAMEWORK_CUM),
        language=_pick(rng, _LANGUAGES, _LANGUAGE_CUM),
        reach=reach,
        spdx=_pick(rng, _SPDX, _SPDX_CUM) if reach == "ok" else None,
    )


# --- catalogues: tasks, collections, methods, datasets -----------------------------------


@dataclass(slots=True)
class _Task:
    name: str
    slug: str
    topic: int
    description: str
    categories: list[str]


@functools.lru_cache(maxsize=4)
def _task_catalog(seed: int, n: int) -> tuple[tuple[_Task, ...], tuple[list[int], ...]]:
    """n tasks spread over the topics; per topic, task indices in popularity order."""
    _, topics, functional = _language()
    rng = _rng(seed, _S_TASKS)
    total_w = sum(t.weight for t in topics)
    quotas = [max(1, round(n * t.weight / total_w)) for t in topics]
    while sum(quotas) > n:
        quotas[quotas.index(max(quotas))] -= 1
    while sum(quotas) < n:
        quotas[quotas.index(max(quotas))] += 1
    tasks: list[_Task] = []
    by_topic: list[list[int]] = [[] for _ in topics]
    seen: set[str] = set()
    for t, topic in enumerate(topics):
        names: list[str] = list(topic.bases)
        rng.shuffle(names)
        singles = [f"{m} {b}" for b in topic.bases for m in _MODIFIERS]
        rng.shuffle(singles)
        names += singles
        attempts = 0
        while len(names) < quotas[t] * 2 and attempts < quotas[t] * 20:
            attempts += 1
            a, b = rng.sample(_MODIFIERS, 2)
            names.append(f"{a} {b} {rng.choice(topic.bases)}")
        count = 0
        for name in names:
            if count >= quotas[t]:
                break
            slug = _name_slug(name)
            if slug in seen:
                continue
            seen.add(slug)
            text = _Text(rng, topic, functional)
            description = "" if rng.random() < 0.25 else text.sentences(rng.randint(15, 60))
            categories = [topic.area]
            if rng.random() < 0.2:
                categories.append("Methodology" if topic.area != "Methodology" else "Graphs")
            by_topic[t].append(len(tasks))
            tasks.append(_Task(name, slug, t, description, categories))
            count += 1
    return tuple(tasks), tuple(by_topic)


@functools.lru_cache(maxsize=4)
def _task_cums(seed: int, n: int) -> tuple[list[float], ...]:
    _, by_topic = _task_catalog(seed, n)
    return tuple(_zipf_cum(len(ids), 1.0, 1.5) for ids in by_topic)


_AREAS = {
    "general": "General",
    "computer-vision": "Computer Vision",
    "natural-language-processing": "Natural Language Processing",
    "graphs": "Graphs",
    "reinforcement-learning": "Reinforcement Learning",
    "sequential": "Sequential",
    "audio": "Audio",
}
_COLLECTION_STEMS = {
    "general": """Activation Functions|Normalization|Regularization|Stochastic Optimization|
    Attention Modules|Loss Functions|Skip Connections|Feedforward Networks|Learning Rate
    Schedules|Initialization|Output Functions|Distributed Methods|Generative Models|
    Clustering|Dimensionality Reduction|Ensembling|Hyperparameter Search|Pruning|
    Quantization|Knowledge Distillation|Parameter Sharing|Adversarial Training|Fine-Tuning""",
    "computer-vision": """Convolutional Neural Networks|Image Models|Object Detection Models|
    Semantic Segmentation Models|Image Data Augmentation|Pooling Operations|Vision
    Transformers|Generative Adversarial Networks|Image Feature Extractors|Convolutions|
    Backbone Architectures|Instance Segmentation Models|Pose Estimation Models|Video Models|
    Super-Resolution Models|Point Cloud Models|Neural Rendering|Diffusion Models""",
    "natural-language-processing": """Language Models|Transformers|Word Embeddings|
    Tokenizers|Sequence To Sequence Models|Attention Mechanisms|Text Augmentation|Question
    Answering Models|Machine Translation Models|Sentence Embeddings|Prompting Methods|
    Retrieval-Augmented Models""",
    "graphs": """Graph Neural Networks|Graph Embeddings|Graph Convolutions|Graph Pooling|
    Knowledge Graph Embeddings|Message Passing|Graph Transformers""",
    "reinforcement-learning": """Policy Gradient Methods|Value Function Estimation|
    Q-Learning Networks|Exploration Strategies|Replay Memory|Model-Based RL|Offline RL|
    Multi-Agent RL""",
    "sequential": """Recurrent Neural Networks|Time Series Models|Temporal Convolutions|
    State Space Models|Sequence Decoding Methods""",
    "audio": """Speech Recognition Models|Text-to-Speech Models|Audio Feature Extractors|
    Vocoders|Speech Separation Models|Audio Augmentation""",
}


@dataclass(slots=True)
class _Collection:
    name: str
    area_id: str
    area: str
    description: str
    parent: str | None


@functools.lru_cache(maxsize=4)
def _collections(seed: int) -> tuple[tuple[_Collection, ...], dict[str, list[int]]]:
    _, topics, functional = _language()
    rng = _rng(seed, _S_COLLECTIONS)
    out: list[_Collection] = []
    by_area: dict[str, list[int]] = {}
    for area_id, stems in _COLLECTION_STEMS.items():
        names = _split(stems, "|")
        topic = next((t for t in topics if t.method_area == area_id), topics[7])
        text = _Text(rng, topic, functional)
        for name in names:
            siblings = [out[i].name for i in by_area.get(area_id, [])]
            parent = rng.choice(siblings) if siblings and rng.random() < 0.3 else None
            by_area.setdefault(area_id, []).append(len(out))
            out.append(
                _Collection(name, area_id, _AREAS[area_id], text.sentences(20, False), parent)
            )
    # The real dumps carry a collection with no area at all.
    out.append(_Collection("Weight Recovery Attacks", "", "", "", None))
    return tuple(out), by_area


_METHOD_CORE = """Attention|Convolution|Normalization|Pooling|Dropout|Embedding|Transformer|
Network|Autoencoder|Flow|Encoder|Decoder|Optimizer|Activation|Loss|Regularization|
Augmentation|Block|Unit|Layer|Module|Policy Gradient|Q-Network|Sampler|Memory|Router|Adapter|
Tokenizer|Head|Gate|Mixer|Kernel|Scheduler|Distillation|Projection|Quantizer"""
_METHOD_CORE = _split(_METHOD_CORE, "|")
_METHOD_ADJ = """Gated|Residual|Sparse|Dynamic|Hierarchical|Adaptive|Contrastive|Deformable|
Spectral|Stochastic|Recurrent|Dilated|Grouped|Depthwise|Linear|Local|Global|Axial|Cross|
Multi-Head|Shifted|Rotary|Relative|Conditional|Variational|Masked|Causal|Bidirectional|
Efficient|Lightweight|Robust|Mixture-of-Experts|Low-Rank|Weight-Tied|Self-Normalizing|
Squeeze-and-Excitation|Nyström|Fréchet|Lévy|Rényi|Schrödinger"""
_METHOD_ADJ = _split(_METHOD_ADJ, "|")


@dataclass(slots=True)
class _Catalog:
    """Everything an archive of one size draws names from."""

    seed: int
    sizes: Sizes
    tasks: tuple[_Task, ...]
    tasks_by_topic: tuple[list[int], ...]
    task_cums: tuple[list[float], ...]


@functools.lru_cache(maxsize=4)
def _catalog(seed: int, papers: int) -> _Catalog:
    sizes = archive_sizes(papers)
    tasks, by_topic = _task_catalog(seed, sizes.tasks)
    return _Catalog(seed, sizes, tasks, by_topic, _task_cums(seed, sizes.tasks))


def task_names(seed: int, papers: int = DEFAULT_PAPERS) -> list[str]:
    """The task catalogue that papers, datasets and evaluation tables all draw from."""
    return [t.name for t in _catalog(seed, papers).tasks]


# --- paper identity: the fields every file about a paper must agree on --------------------

_YEARS = tuple(range(1990, 2026))
_YEAR_WEIGHTS = tuple(
    0.08 if y < 2000 else 0.25 if y < 2008 else 0.6 if y < 2012 else w
    for y, w in zip(
        _YEARS,
        [0] * 22 + [1.5, 2.0, 2.7, 3.5, 5.0, 7.0, 9.5, 12.0, 14.0, 15.0, 15.0, 16.0, 17.0, 9.0],
        strict=True,
    )
)
_YEAR_CUM = _cum(_YEAR_WEIGHTS)
_TOPIC_CUM = _cum(spec["weight"] for spec in _TOPIC_SPEC)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _month_cap(year: int) -> int:
    """How many arXiv numbers a month of this year hands out (4 digits before 2015)."""
    if year < 2015:
        return 9_999 if year >= 2012 else 7_999
    return min(89_999, 9_000 + (year - 2015) * 1_900)


def _arxiv_format(year: int, month: int, number: int) -> str:
    digits = 4 if year < 2015 else 5
    return f"{year % 100:02d}{month:02d}.{number:0{digits}d}"


def _identity_stream(seed: int, i: int, cat: _Catalog):
    """The first draws of a paper: topic, primary task, date, arXiv or not, title."""
    _, topics, functional = _language()
    rng = _rng(seed, i, _S_ID)
    topic_i = rng.choices(range(len(topics)), cum_weights=_TOPIC_CUM)[0]
    topic = topics[topic_i]
    ids = cat.tasks_by_topic[topic_i]
    task_i = ids[bisect_left(cat.task_cums[topic_i], rng.random() * cat.task_cums[topic_i][-1])]
    year = rng.choices(_YEARS, cum_weights=_YEAR_CUM)[0]
    month = rng.randint(1, 7 if year == 2025 else 12)
    day = rng.randint(1, 28 if (year, month) == (2025, 7) else _DAYS[month - 1])
    has_arxiv = year >= 2007 and rng.random() < 0.85
    text = _Text(rng, topic, functional)
    task_name = cat.tasks[task_i].name if rng.random() < 0.6 else None
    title = _make_title(text, task_name)
    return rng, text, topic_i, task_i, year, month, day, has_arxiv, title


def _slug_base(seed: int, i: int, cat: _Catalog, title: str) -> str:
    if i and _unit(seed, i, _S_DUP) < 0.003:  # a title used before: the slug repeats
        j = _mix(seed, i, _S_DUP_OF) % i
        return slugify(_identity_stream(seed, j, cat)[8])
    if _unit(seed, i, _S_RETITLE) < 0.01:  # renamed since: slug from the old title
        _, topics, functional = _language()
        rng = _rng(seed, i, _S_RETITLE)
        return slugify(
            _make_title(_Text(rng, topics[rng.randrange(len(topics))], functional), None)
        )
    return slugify(title)


def _hash_text(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


@dataclass(slots=True)
class _Index:
    """The only facts about a paper that depend on other papers."""

    arxiv_number: array  # per paper; 0 = no arXiv id
    primary_task: array  # per paper
    slug_suffix: dict[int, int]  # paper index -> N of its "-N" suffix (the few repeats)
    _by_task: dict[int, array] | None = None

    def papers_by_task(self) -> dict[int, array]:
        if self._by_task is None:
            by: dict[int, array] = {}
            for i, t in enumerate(self.primary_task):
                by.setdefault(t, array("I")).append(i)
            self._by_task = by
        return self._by_task


def index_draws(seed: int, papers: int, start: int, stop: int) -> tuple[array, array, array]:
    """The per-paper inputs of the archive index for papers start..stop-1.

    The expensive part of building the index (a title per paper); independent per
    paper, so it can be computed in parts, in parallel, and joined by install_index.
    """
    cat = _catalog(seed, papers)
    hashes, months, primary = array("Q"), array("I"), array("i")
    for i in range(start, min(stop, papers)):
        _, _, _, task_i, year, month, _, has_arxiv, title = _identity_stream(seed, i, cat)
        primary.append(task_i)
        hashes.append(_hash_text(_slug_base(seed, i, cat, title)))
        months.append(year * 100 + month if has_arxiv else 0)
    return hashes, months, primary


_INSTALLED: dict[tuple[int, int], _Index] = {}


def install_index(seed: int, papers: int, parts: list[tuple[array, array, array]]) -> None:
    """Build the archive index from index_draws parts (in paper order) and use it.

    For generating one archive in several processes: the parts are drawn in parallel,
    and each process installs the index instead of drawing all of it again.
    """
    hashes, months, primary = array("Q"), array("I"), array("i")
    for h, m, p in parts:
        hashes.extend(h)
        months.extend(m)
        primary.extend(p)
    if len(hashes) != papers:
        raise ValueError(f"index parts cover {len(hashes)} papers, not {papers}")
    _INSTALLED.clear()
    _INSTALLED[(seed, papers)] = _join_index(seed, hashes, months, primary)


@functools.lru_cache(maxsize=2)
def _archive_index(seed: int, papers: int) -> _Index:
    """One pass over the papers' titles and dates (about 20 s for 576k papers).

    Slugs: the first paper with a slug keeps it, later ones get ``-1``, ``-2``, ...
    (counted per 64-bit hash of the slug; the base slug never ends in a number, so
    suffixed slugs are unique even if two different slugs shared a hash). arXiv numbers:
    the c-th paper of a month gets number perm(c), a bijection of 1..cap, so ids are
    unique without remembering them. Both depend on earlier papers only.
    """
    if (seed, papers) in _INSTALLED:
        return _INSTALLED[(seed, papers)]
    return _join_index(seed, *index_draws(seed, papers, 0, papers))


def _join_index(seed: int, hashes: array, months: array, primary: array) -> _Index:
    numbers = array("I")
    per_month: dict[int, int] = {}
    for key in months:
        number = 0
        if key:
            year = key // 100
            c = per_month.get(key, 0)
            per_month[key] = c + 1
            cap = _month_cap(year)
            if c < cap:
                number = (c * 7_919 + _mix(seed, _S_ARXIV, key) % cap) % cap + 1
            elif year >= 2015 and c < 89_999:
                number = c + 1
        numbers.append(number)
    # Which hashes occur more than once, in little memory: a 2**24-bit map flags hashes
    # whose bit was already set (true repeats and ~10k false alarms); an exact count
    # over those few then keeps only the repeats.
    bits = bytearray(1 << 21)
    maybe: set[int] = set()
    for h in hashes:
        slot = h & 0xFFFFFF
        byte, bit = slot >> 3, 1 << (slot & 7)
        if bits[byte] & bit:
            maybe.add(h)
        else:
            bits[byte] |= bit
    del bits
    counts: dict[int, int] = {}
    for h in hashes:
        if h in maybe:
            counts[h] = counts.get(h, 0) + 1
    repeated = {h for h, c in counts.items() if c > 1}
    suffix: dict[int, int] = {}
    if repeated:
        seen: dict[int, int] = {}
        for i, h in enumerate(hashes):
            if h in repeated:
                n = seen.get(h, 0)
                seen[h] = n + 1
                if n:
                    suffix[i] = n
    return _Index(numbers, primary, suffix)


@dataclass(slots=True)
class _Paper:
    index: int
    slug: str
    title: str
    arxiv_id: str | None
    date: str | None
    url_abs: str | None
    url_pdf: str | None
    proceeding: str | None
    conference: str | None
    openreview_id: str | None
    topic: int
    task: int
    year: int

    @property
    def url(self) -> str:
        return f"https://paperswithcode.com/paper/{self.slug}"


_CONFERENCES = (
    ("NeurIPS", 12),
    ("ICML", 7),
    ("ICLR", 5),
    ("CVPR", 6),
    ("ICCV", 10),
    ("ECCV", 10),
    ("ACL", 7),
    ("EMNLP", 11),
    ("NAACL", 6),
    ("AAAI", 2),
    ("IJCAI", 8),
    ("KDD", 8),
    ("WWW", 4),
    ("SIGIR", 7),
    ("ICASSP", 5),
    ("INTERSPEECH", 9),
    ("MICCAI", 10),
    ("CoRL", 11),
    ("WACV", 1),
    ("COLING", 12),
    ("AISTATS", 4),
    ("UAI", 8),
    ("TACL", 1),
    ("BMVC", 11),
)
_OR_ALPHABET = string.ascii_letters + string.digits + "_-"


def _paper(seed: int, i: int, cat: _Catalog, index: _Index) -> _Paper:
    rng, _, topic, task, year, month, day, _, title = _identity_stream(seed, i, cat)
    base = _slug_base(seed, i, cat, title)
    n = index.slug_suffix.get(i)
    slug = f"{base}-{n}" if n else base
    number = index.arxiv_number[i]
    arxiv_id = _arxiv_format(year, month, number) if number else None
    version = rng.choices((1, 2, 3, 4, 5), cum_weights=(45, 75, 90, 96, 100))[0]
    openreview_id = (
        "".join(rng.choice(_OR_ALPHABET) for _ in range(10)) if rng.random() < 0.08 else None
    )
    proceeding, conference = _proceeding(rng, year, month)
    if arxiv_id:
        url_abs = f"https://arxiv.org/abs/{arxiv_id}v{version}"
        url_pdf = f"https://arxiv.org/pdf/{arxiv_id}v{version}.pdf"
    elif openreview_id:
        url_abs = f"https://openreview.net/forum?id={openreview_id}"
        url_pdf = f"https://openreview.net/pdf?id={openreview_id}"
    else:
        url_abs, url_pdf = _venue_urls(rng, year)
    return _Paper(
        index=i,
        slug=slug,
        title=title,
        arxiv_id=arxiv_id,
        date=_paper_date(seed, i, rng, year, month, day),
        url_abs=url_abs,
        url_pdf=url_pdf,
        proceeding=proceeding,
        conference=conference,
        openreview_id=openreview_id,
        topic=topic,
        task=task,
        year=year,
    )


def _proceeding(rng: random.Random, year: int, month: int) -> tuple[str | None, str | None]:
    """A quarter of the papers appeared at a conference: (proceeding, conference)."""
    proceeding = conference = None
    if rng.random() < 0.25:
        conf, conf_month = _CONFERENCES[rng.randrange(len(_CONFERENCES))]
        conf_year = year + (1 if conf_month < month and rng.random() < 0.7 else 0)
        proceeding = f"{conf} {conf_year} {conf_month}"
        if rng.random() < 0.9:
            conference = f"{conf.lower()}-{conf_year}-{conf_month}"
    return proceeding, conference


def _venue_urls(rng: random.Random, year: int) -> tuple[str | None, str | None]:
    """(url_abs, url_pdf) of a paper neither on arXiv nor on OpenReview."""
    roll = rng.random()
    if roll < 0.3:
        venue = rng.choice(("acl", "emnlp", "naacl", "coling"))
        url_abs = f"https://aclanthology.org/{year}.{venue}-main.{rng.randint(1, 900)}/"
        return url_abs, url_abs[:-1] + ".pdf"
    if roll < 0.5:
        digest = _hex(rng, 32)
        return (
            f"https://papers.nips.cc/paper/{year}/hash/{digest}-Abstract.html",
            f"https://papers.nips.cc/paper/{year}/file/{digest}-Paper.pdf",
        )
    if roll < 0.75:
        return f"https://ieeexplore.ieee.org/document/{rng.randint(1_000_000, 9_999_999)}", None
    if roll < 0.9:
        url_abs = (
            f"https://link.springer.com/chapter/10.1007/978-3-030-"
            f"{rng.randint(10_000, 99_999)}-{rng.randint(0, 9)}_{rng.randint(1, 60)}"
        )
        return url_abs, ""
    return None, None


def _paper_date(
    seed: int, i: int, rng: random.Random, year: int, month: int, day: int
) -> str | None:
    """The paper's date; a few are impossible (long before arXiv, or after the
    snapshot) and a few missing, as in the dumps."""
    date: str | None = f"{year:04d}-{month:02d}-{day:02d}"
    odd = _unit(seed, i, _S_ODD_DATE)
    if odd < 0.0005:
        if odd < 0.0002:
            date = f"{rng.choice((1001, 1800, 1899, 1900 - rng.randint(1, 300))):04d}-01-01"
        else:
            date = f"{rng.choice((2025, 2026, 2027, 2030, 2099))}-{rng.randint(8, 12):02d}-15"
    elif odd < 0.0015:
        date = None
    return date


def _prepare(seed: int, papers: int) -> tuple[_Catalog, _Index]:
    return _catalog(seed, papers), _archive_index(seed, papers)


def _ref(seed: int, i: int, papers: int) -> _Paper:
    cat, index = _prepare(seed, papers)
    return _paper(seed, i, cat, index)


# --- methods --------------------------------------------------------------------------------


def _junk_word(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(k))


@functools.lru_cache(maxsize=4)
def _method_catalog(seed: int, n: int, papers: int) -> tuple[dict[str, Any], ...]:
    """The methods dump, in popularity order (index 0 is the most used method)."""
    rng = _rng(seed, _S_METHODS)
    popularity = _zipf_cum(n, 1.05, 3.0)
    total = popularity[-1]
    mentions = papers * 1.5
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    junk_at = {rng.randrange(n // 3, n) for _ in range(max(2, n // 2500))}
    dup_at = rng.randrange(n // 2, n)
    while len(rows) < n:
        k = len(rows)
        share = (popularity[k] - (popularity[k - 1] if k else 0.0)) / total
        num_papers = max(0, round(mentions * share * rng.uniform(0.5, 1.5)) - rng.randint(0, 2))
        if k in junk_at:
            row = _junk_method(rng, seen, seed, papers)
        elif k == dup_at and rows:  # a case-only duplicate of an earlier method's name
            row = _case_duplicate(rng, rows, seen)
            if row is None:
                dup_at += 1
        else:
            row = _method(rng, seen, seed, papers, rows)
            if row is not None:
                row["num_papers"] = num_papers
        if row is not None:
            rows.append(row)
    return tuple(rows)


def _junk_method(rng: random.Random, seen: set[str], seed: int, papers: int) -> dict | None:
    """Keyboard mash, as the dump has a few (None: its name was taken)."""
    name = _junk_word(rng, 3)
    if _name_slug(name) in seen:
        return None
    seen.add(_name_slug(name))
    desc = name[::-1] + name
    row = _method_row(rng, name, _junk_word(rng, 3), desc, seed, papers, [], 2000)
    row["num_papers"] = rng.randint(0, 9)
    return row


def _case_duplicate(rng: random.Random, rows: list[dict], seen: set[str]) -> dict | None:
    """An earlier method again, its name in another case (None: that one was taken)."""
    original = rows[rng.randrange(len(rows))]
    if original["url"].rsplit("/", 1)[1] + "-1" in seen:
        return None
    seen.add(original["url"].rsplit("/", 1)[1] + "-1")
    dup = dict(original)
    dup["name"] = (
        original["name"].lower()
        if original["name"] != original["name"].lower()
        else original["name"].upper()
    )
    dup["url"] = original["url"] + "-1"
    dup["num_papers"] = rng.randint(0, 5)
    return dup


def _method(
    rng: random.Random, seen: set[str], seed: int, papers: int, rows: list[dict]
) -> dict | None:
    """A method of some area, its name an acronym, a model's name or its full name
    (None: every spelling tried was taken)."""
    _, topics, functional = _language()
    colls, by_area = _collections(seed)
    area_id = rng.choices(list(_COLLECTION_STEMS), weights=(35, 35, 10, 6, 6, 4, 4))[0]
    topic = next((t for t in topics if t.method_area == area_id), topics[7])
    full = f"{rng.choice(_METHOD_ADJ)} {rng.choice(_METHOD_CORE)}"
    if rng.random() < 0.35:
        full = f"{rng.choice(_METHOD_ADJ)} {full}"
    if rng.random() < 0.15:
        full += f" for {rng.choice(topic.bases)}"
    style = rng.random()
    if style < 0.45:
        name = "".join(w[0] for w in re.split(r"[\s-]+", full) if w[:1].isalpha()).upper()
    elif style < 0.8:
        name = _Text(rng, topic, functional).model_name()
    else:
        name = full
    if _name_slug(name) in seen:
        name = f"{name}-{rng.choice(('v2', 'II', 'X', 'Lite', 'Plus'))}"
        if _name_slug(name) in seen:
            return None
    seen.add(_name_slug(name))
    ncol = rng.choices((0, 1, 2, 3, 4), cum_weights=(1, 80, 96, 99.5, 100))[0]
    area_colls = by_area[area_id] + by_area["general"]
    collections = [colls[c] for c in dict.fromkeys(rng.sample(area_colls, ncol))]
    if rng.random() < 0.002:
        collections.append(colls[-1])
    text = _Text(rng, topic, functional)
    year = 2000  # the dumps' placeholder for most methods
    if rng.random() < 0.07:
        year = (
            rng.choice((1983, 1993, 1998, 2009)) if rng.random() < 0.3 else rng.randint(2005, 2024)
        )
    desc = _method_description(rng, text, name, full, rows)
    return _method_row(rng, name, full, desc, seed, papers, collections, year)


def _method_description(rng, text: _Text, name: str, full: str, rows) -> str:
    lead = f"**{full}**" + (f", or **{name}**," if name != full else "")
    first = text.sentences(max(8, int(rng.lognormvariate(3.7, 0.6))), opener=False)
    kind = rng.choice(("method", "module", "layer", "technique", "model"))
    body = [f"{lead} is a {kind} {first[:1].lower()}{first[1:]}"]
    while rng.random() < 0.35:
        paragraph = text.sentences(int(rng.lognormvariate(3.5, 0.8)) + 4, opener=False)
        if rows and rng.random() < 0.4:
            other = rows[rng.randrange(len(rows))]
            paragraph += f" It builds on [{other['name']}]({other['url']})."
        if rng.random() < 0.2:
            paragraph += r" $$ y = \sigma\left(W x + b\right) $$"
        body.append(paragraph)
    if rng.random() < 0.05:
        body.append("Image source: [original paper](https://arxiv.org/abs/1512.00001)")
    return _decorate("\r\n\r\n".join(body), rng)


def _method_row(rng, name, full, desc, seed, papers, collections, year) -> dict[str, Any]:
    roll = rng.random()
    paper_obj = source_url = source_title = None
    if roll < 0.88:
        ref = _ref(seed, rng.randrange(papers), papers)
        paper_obj = {"title": ref.title, "url": ref.url}
        source_title = ref.title
        if ref.arxiv_id:
            scheme = "https" if rng.random() < 0.7 else "http"
            source_url = f"{scheme}://arxiv.org/abs/{ref.arxiv_id}v{rng.randint(1, 3)}"
        else:
            source_url = ref.url_abs
    elif roll < 0.92:
        source_url = f"https://doi.org/10.{rng.randint(1000, 9999)}/{rng.randint(10**5, 10**7)}"
        source_title = full
    code = None
    if rng.random() < 0.4:
        pool = archive_sizes(papers).repos
        repo = _repo(seed, rng.randrange(pool), pool)
        code = (
            f"{repo.url}/blob/{_hex(rng, 40)}/{repo.name.lower()}/model.py#L{rng.randint(1, 900)}"
        )
    return {
        "url": f"https://paperswithcode.com/method/{_name_slug(name)}",
        "name": name,
        "full_name": full,
        "description": desc,
        "paper": paper_obj,
        "introduced_year": year,
        "source_url": source_url,
        "source_title": source_title,
        "code_snippet_url": code,
        "num_papers": 0,
        "collections": [
            {"collection": c.name, "area_id": c.area_id, "area": c.area} for c in collections
        ],
    }


@functools.lru_cache(maxsize=4)
def _paper_methods(seed: int, n: int, papers: int):
    """Per method, the object a papers-with-abstracts row embeds; and per-topic weights."""
    rows = _method_catalog(seed, n, papers)
    colls = {c.name: c for c in _collections(seed)[0]}
    embedded = []
    for row in rows:
        main = None
        if row["collections"]:
            c = colls[row["collections"][0]["collection"]]
            main = {
                "name": c.name,
                "description": c.description,
                "parent": c.parent,
                "area": c.area,
            }
        embedded.append(
            {
                "name": row["name"],
                "full_name": row["full_name"],
                "description": row["description"],
                "introduced_year": row["introduced_year"],
                "source_url": row["source_url"],
                "source_title": row["source_title"],
                "code_snippet_url": row["code_snippet_url"],
                "main_collection": main,
            }
        )
    return tuple(embedded), _zipf_cum(len(rows), 1.05, 3.0)


# --- datasets ---------------------------------------------------------------------------------

_DATASET_TAILS = (
    "",
    "",
    "",
    "",
    "-1K",
    "-10K",
    " v2",
    "2019",
    "2021",
    "-QA",
    "++",
    "-Hard",
    "-Bench",
    "-XL",
    "-Mini",
)
_DATASET_NOUNS = ("Dataset", "Benchmark", "Corpus", "Challenge", "Collection", "Suite")
_LANGUAGE_NAMES = tuple(
    "English Chinese German French Spanish Japanese Arabic Hindi Russian Portuguese Korean "
    "Vietnamese Swahili".split()
)


def _dataset_name(rng: random.Random, text: _Text) -> str:
    roll = rng.random()
    if roll < 0.35:
        letters = "".join(w[0] for w in text.content_words(rng.randint(2, 5))).upper()
        name = letters + rng.choice(_DATASET_TAILS)
    elif roll < 0.7:
        a, b = text.content_words(2)
        name = _cap(a.split("-")[0]) + _cap(b.split("-")[0]) + rng.choice(_DATASET_TAILS)
    elif roll < 0.95:
        name = text.model_name() + rng.choice(_DATASET_TAILS)
    else:
        word = _cap(text.content_words(1)[0])
        name = word + rng.choice(("网", "-Zürich", "-Köln", "-São", "-中文", " Ñ"))
    return name


@dataclass(frozen=True, slots=True)
class _DatasetEntry:
    name: str
    slug: str
    topic: int
    tasks: tuple[int, ...]
    paper: int  # index of the introducing paper; -1 for none


@functools.lru_cache(maxsize=4)
def _dataset_catalog(seed: int, n: int, papers: int) -> tuple[_DatasetEntry, ...]:
    """Names, tasks and introducing papers of the datasets; the rest is made per row."""
    _, topics, functional = _language()
    cat, index = _prepare(seed, papers)
    by_task = index.papers_by_task()
    rng = _rng(seed, _S_DATASETS)
    out: list[_DatasetEntry] = []
    seen: set[str] = set()
    while len(out) < n:
        topic_i = rng.choices(range(len(topics)), cum_weights=_TOPIC_CUM)[0]
        name = _dataset_name(rng, _Text(rng, topics[topic_i], functional))
        slug = _name_slug(name)
        if not slug or slug in seen:
            continue
        seen.add(slug)
        ids, cum = cat.tasks_by_topic[topic_i], cat.task_cums[topic_i]
        k = rng.choices((0, 1, 2, 3, 5), cum_weights=(8, 50, 75, 92, 100))[0]
        tasks = tuple(
            dict.fromkeys(ids[bisect_left(cum, rng.random() * cum[-1])] for _ in range(k))
        )
        paper = -1
        if rng.random() < 0.72:
            candidates = by_task.get(tasks[0]) if tasks else None
            paper = (
                candidates[rng.randrange(len(candidates))] if candidates else rng.randrange(papers)
            )
        out.append(_DatasetEntry(name, slug, topic_i, tasks, paper))
    return tuple(out)


def _dataset_row(seed: int, k: int, n: int, entry: _DatasetEntry, papers: int) -> dict[str, Any]:
    _, topics, functional = _language()
    cat, index = _prepare(seed, papers)
    rng = _rng(seed, _S_DATASETS, k)
    topic = topics[entry.topic]
    text = _Text(rng, topic, functional)
    name, slug = entry.name, entry.slug
    paper_obj, introduced, source = _dataset_paper(seed, rng, entry, cat, index)
    thing = rng.choice(text.content_words(3))
    count = f"{rng.randint(1, 999):,}" if rng.random() < 0.5 else f"{rng.randint(1, 90)}k"
    description = (
        f"**{name}** is a {rng.choice(('dataset', 'benchmark', 'corpus'))} of {count} "
        f"{thing}s. {text.sentences(int(rng.lognormvariate(3.9, 0.6)), opener=False)}" + source
    )
    is_text = topic.key in ("nlp", "recsys") or rng.random() < 0.05
    languages = (
        list(dict.fromkeys(["English", *rng.sample(_LANGUAGE_NAMES, rng.randint(0, 3))]))
        if is_text and rng.random() < 0.7
        else []
    )
    variants = [name]
    if rng.random() < 0.25:
        picked = rng.sample(("val", "test", "10%", "full", "clean", "5-shot"), rng.randint(1, 3))
        variants += [f"{name} ({v})" for v in picked]
    loaders = _data_loaders(seed, rng, slug, cat.sizes.repos)
    homepage = _homepage(rng, slug)
    full_name = name
    if rng.random() < 0.6:
        words = " ".join(_cap(w) for w in text.content_words(rng.randint(2, 4)))
        full_name = f"{words} {rng.choice(_DATASET_NOUNS)}"
    # Popularity follows catalogue order (Zipf), as num_papers does in the real dump.
    share = 1.0 / ((k + 2.0) * math.log((n + 1.5) / 1.5))
    modalities = []
    if rng.random() < 0.85:
        modalities = rng.sample(topic.modalities, rng.randint(0, len(topic.modalities)))
    return {
        "url": f"https://paperswithcode.com/dataset/{slug}",
        "name": name,
        "full_name": full_name,
        "homepage": homepage,
        "description": _decorate(description, rng),
        "paper": paper_obj,
        "introduced_date": introduced,
        "warning": None,
        "modalities": modalities,
        "tasks": [
            {
                "task": cat.tasks[t].name,
                "url": f"https://paperswithcode.com/task/{cat.tasks[t].slug}",
            }
            for t in entry.tasks
        ],
        "languages": languages,
        "variants": variants,
        "num_papers": max(0, round(papers * 0.6 * share * rng.uniform(0.5, 1.5))),
        "data_loaders": loaders,
    }


def _dataset_paper(
    seed: int, rng: random.Random, entry: _DatasetEntry, cat: _Catalog, index: _Index
) -> tuple[dict | None, str | None, str]:
    """The paper that introduced the dataset (or none), its date (or another, or none),
    and the description's closing "Source:" line."""
    if entry.paper >= 0:
        ref = _paper(seed, entry.paper, cat, index)
        link = f"/paper/{ref.slug}" if rng.random() < 0.7 else (ref.url_abs or ref.url)
        return (
            {"title": ref.title, "url": ref.url},
            ref.date,
            f"\r\n\r\nSource: [{ref.title}]({link})",
        )
    introduced = None
    if rng.random() < 0.5:
        introduced = f"{rng.randint(1998, 2025)}-{rng.randint(1, 12):02d}-01"
        if rng.random() < 0.02:
            introduced = f"{rng.randint(2026, 2031)}-{rng.randint(1, 12):02d}-01"
    return None, introduced, ""


def _homepage(rng: random.Random, slug: str) -> str | None:
    if rng.random() < 0.7:
        return rng.choice(
            (
                f"https://{slug}.github.io/",
                f"https://www.{slug.split('-')[0]}.org/data",
                f"https://github.com/{slug}/{slug}",
            )
        )
    return None


def _data_loaders(seed: int, rng: random.Random, slug: str, pool: int) -> list[dict[str, Any]]:
    loaders = []
    for _ in range(rng.choices((0, 1, 2, 3), cum_weights=(55, 85, 97, 100))[0]):
        if rng.random() < 0.5:
            loaders.append(
                {
                    "url": f"https://huggingface.co/datasets/{slug}",
                    "repo": "https://github.com/huggingface/datasets",
                    "frameworks": ["jax", "pytorch", "tf"],
                }
            )
        else:
            repo = _repo(seed, rng.randrange(pool), pool)
            loaders.append({"url": repo.url, "repo": repo.url, "frameworks": [repo.framework]})
    return loaders


@functools.lru_cache(maxsize=4)
def _introduced(seed: int, papers: int, n_methods: int, n_datasets: int):
    """Paper slug -> names of the methods / datasets it introduced (for records)."""
    methods: dict[str, list[str]] = {}
    datasets: dict[str, list[str]] = {}
    prefix = "https://paperswithcode.com/paper/"
    for row in _method_catalog(seed, n_methods, papers):
        if row["paper"]:
            methods.setdefault(row["paper"]["url"].removeprefix(prefix), []).append(row["name"])
    cat, index = _prepare(seed, papers)
    for entry in _dataset_catalog(seed, n_datasets, papers):
        if entry.paper >= 0:
            slug = _paper(seed, entry.paper, cat, index).slug
            datasets.setdefault(slug, []).append(entry.name)
    return methods, datasets


# --- papers ---------------------------------------------------------------------------------


def _body(seed: int, p: _Paper, cat: _Catalog, n_methods: int, papers: int) -> dict[str, Any]:
    rng = _rng(seed, p.index, _S_BODY)
    _, topics, functional = _language()
    text = _Text(rng, topics[p.topic], functional)
    n_words = min(300, max(60, int(rng.gauss(168, 48))))
    abstract = _decorate(text.sentences(n_words), rng)
    if rng.random() < 0.04:
        abstract += f" Code is available at {_repo(seed, _link_repo(seed, p.index, cat.sizes.repos), cat.sizes.repos).url}."  # noqa: E501
    k = rng.choices(_AUTHOR_COUNTS, cum_weights=_AUTHOR_COUNT_CUM)[0]
    ranks = rng.choices(range(_AUTHOR_POOL), cum_weights=_author_cum(), k=k)
    authors = [_author_name(seed, r) for r in dict.fromkeys(ranks)]
    if rng.random() < 0.08:
        tasks: list[str] = []
    else:
        ids = cat.tasks_by_topic[p.topic]
        cum = cat.task_cums[p.topic]
        extra = rng.choices(ids, cum_weights=cum, k=rng.choices((0, 1, 2, 3), (35, 35, 20, 10))[0])
        tasks = [cat.tasks[t].name for t in dict.fromkeys([p.task, *extra])]
    embedded, method_cum = _paper_methods(seed, n_methods, papers)
    methods = []
    if rng.random() < 0.55:
        k = rng.choices((1, 2, 3, 4, 5, 6, 8), cum_weights=(30, 55, 72, 84, 92, 97, 100))[0]
        for m in dict.fromkeys(rng.choices(range(len(embedded)), cum_weights=method_cum, k=k)):
            entry = dict(embedded[m])
            if entry["main_collection"] is not None:
                entry["main_collection"] = dict(entry["main_collection"])
            methods.append(entry)
    return {"abstract": abstract, "authors": authors, "tasks": tasks, "methods": methods}


def paper_rows(
    seed: int, papers: int = DEFAULT_PAPERS, *, start: int = 0, stop: int | None = None
) -> Iterator[dict[str, Any]]:
    """papers-with-abstracts rows, one per paper, in index order.

    ``start``/``stop`` give the rows of papers start..stop-1 of the same archive (to
    generate one archive in parts).
    """
    cat, index = _prepare(seed, papers)
    for i in range(start, papers if stop is None else min(stop, papers)):
        p = _paper(seed, i, cat, index)
        body = _body(seed, p, cat, cat.sizes.methods, papers)
        yield _paper_row(p, body)


def _paper_row(p: _Paper, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "paper_url": p.url,
        "arxiv_id": p.arxiv_id,
        "nips_id": None,
        "openreview_id": p.openreview_id,
        "title": p.title,
        "abstract": body["abstract"],
        "short_abstract": None,
        "url_abs": p.url_abs,
        "url_pdf": p.url_pdf,
        "proceeding": p.proceeding,
        "conference": p.conference,
        "authors": body["authors"],
        "tasks": body["tasks"],
        "date": p.date,
        "methods": body["methods"],
    }


# --- links ----------------------------------------------------------------------------------

_LINK_SHARE = 0.43


@dataclass(frozen=True, slots=True)
class _Link:
    repo: int
    is_official: bool
    mentioned_in_paper: bool
    mentioned_in_github: bool


def _link_repo(seed: int, i: int, pool: int) -> int:
    """The repository a paper's first (own) link points at."""
    return _mix(seed, i, _S_LINKS2) % pool


@functools.lru_cache(maxsize=4)
def _popular_cum(pool: int) -> list[float]:
    return _zipf_cum(max(5, pool // 40), 1.0, 2.0)


def _links(seed: int, i: int, pool: int) -> list[_Link]:
    """The code links of paper i (empty for about 57% of papers)."""
    if _unit(seed, i, _S_LINKS) >= _LINK_SHARE:
        return []
    rng = _rng(seed, i, _S_LINKS)
    roll = rng.random()
    if roll < 0.905:
        n = 1
    elif roll < 0.975:
        n = 2
    elif roll < 0.995:
        n = rng.randint(3, 5)
    else:
        n = rng.randint(6, 30)
    popular = _popular_cum(pool)
    official = rng.random() < 0.5
    out = []
    used: set[int] = set()
    for k in range(n):
        if k == 0:
            repo = _link_repo(seed, i, pool)
        elif rng.random() < 0.3:
            repo = rng.choices(range(len(popular)), cum_weights=popular)[0]
        else:
            repo = rng.randrange(pool)
        if repo in used:
            continue
        used.add(repo)
        is_official = official and k == 0
        mip = rng.random() < (0.85 if is_official else 0.15)
        out.append(_Link(repo, is_official, mip, rng.random() < 0.6))
    return out


def link_rows(
    seed: int, papers: int = DEFAULT_PAPERS, *, start: int = 0, stop: int | None = None
) -> Iterator[dict[str, Any]]:
    """links-between-papers-and-code rows, grouped by paper in index order.

    About 44% of papers have links (1 mostly, up to 30); about 0.54 links per paper over
    a pool of 0.36 x papers repositories, some of them shared by many papers.
    """
    cat, index = _prepare(seed, papers)
    pool = cat.sizes.repos
    for i in range(start, papers if stop is None else min(stop, papers)):
        links = _links(seed, i, pool)
        if not links:
            continue
        p = _paper(seed, i, cat, index)
        for link in links:
            repo = _repo(seed, link.repo, pool)
            yield {
                "paper_url": p.url,
                "paper_title": p.title,
                "paper_arxiv_id": p.arxiv_id,
                "paper_url_abs": p.url_abs,
                "paper_url_pdf": p.url_pdf,
                "repo_url": repo.url,
                "is_official": link.is_official,
                "mentioned_in_paper": link.mentioned_in_paper,
                "mentioned_in_github": link.mentioned_in_github,
                "framework": repo.framework,
            }


# --- methods and datasets dumps ----------------------------------------------------------


def method_rows(
    seed: int, methods: int = 8_700, *, papers: int = DEFAULT_PAPERS
) -> Iterator[dict[str, Any]]:
    """methods dump rows; papers names the archive whose papers introduce them.

    Includes a few keyboard-mash junk records and one case-only duplicate name.
    """
    for row in _method_catalog(seed, methods, papers):
        yield {**row, "collections": [dict(c) for c in row["collections"]]}


def dataset_rows(
    seed: int, datasets: int = 15_000, *, papers: int = DEFAULT_PAPERS
) -> Iterator[dict[str, Any]]:
    """datasets dump rows; tasks come from the same task catalogue as the papers'."""
    for k, entry in enumerate(_dataset_catalog(seed, datasets, papers)):
        yield _dataset_row(seed, k, datasets, entry, papers)


# --- evaluation tables --------------------------------------------------------------------

_LOWER_BETTER = tuple(
    "WER CER EER MAE MSE RMSE MAPE FID Perplexity Error ATE RPE AbsRel FPR95 CRPS Hausdorff "
    "Time".split()
)
_COUNT_METRICS = ("Params", "Number of params", "GFLOPs")


def _metric_value(rng: random.Random, metric: str, rank: int, base: float) -> Any:
    """One leaderboard cell, written the many ways the real tables write numbers."""
    if any(metric.startswith(c) for c in _COUNT_METRICS):
        size = base * rng.uniform(0.2, 3.0)
        roll = rng.random()
        if roll < 0.4:
            return f"{size:.0f}M" if size >= 1 else f"{size * 1000:.0f}K"
        if roll < 0.55:
            return f"{size / 1000:.1f}B" if size > 500 else f"{size:.1f}M"
        if roll < 0.85:
            return str(int(size * 1_000_000))
        return int(size * 1_000_000)
    lower = any(h in metric for h in _LOWER_BETTER)
    value = base * (1 + 0.015 * rank) if lower else base * (1 - 0.012 * rank)
    value *= rng.uniform(0.995, 1.005)
    fraction = base < 1.5
    roll = rng.random()
    if roll < 0.03:
        return ""
    if roll < 0.38:
        return round(value, 4 if fraction else 2)
    if roll < 0.7:
        return f"{value:.4f}" if fraction else f"{value:.2f}"
    if roll < 0.82 and not lower and not fraction:
        return f"{value:.2f}%"
    if roll < 0.9:
        spread = value * rng.uniform(0.001, 0.02)
        return f"{value:.4f} ± {spread:.4f}" if fraction else f"{value:.2f} ± {spread:.2f}"
    if roll < 0.95:
        return f"{value:.3f}"
    return f"{value:.1f}" if not fraction else f"{value:.3f}"


def _metric_base(rng: random.Random, metric: str) -> float:
    if any(metric.startswith(c) for c in _COUNT_METRICS):
        return rng.uniform(5, 400)
    if any(h in metric for h in _LOWER_BETTER):
        return rng.uniform(0.05, 1.0) if rng.random() < 0.4 else rng.uniform(2, 40)
    if rng.random() < 0.2:
        return rng.uniform(0.5, 0.98)
    return rng.uniform(45, 99)


@dataclass(slots=True)
class _Board:
    task: int
    dataset: str
    dataset_slug: str
    metrics: list[str]
    rows: int
    key: int


@functools.lru_cache(maxsize=2)
def _evaluation_plan(seed: int, papers: int, rows: int):
    """The task forest (with shared subtasks) and the leaderboards, sized to ``rows``."""
    cat, _ = _prepare(seed, papers)
    sizes = cat.sizes
    datasets = _dataset_catalog(seed, sizes.datasets, papers)
    rng = _rng(seed, _S_EVAL)
    f = papers / DEFAULT_PAPERS
    order = list(range(len(cat.tasks)))
    rng.shuffle(order)
    n_top = min(len(order), max(5, round(1_280 * f)))
    n_sub = min(len(order) - n_top, max(6, round(1_700 * f)))
    top = order[:n_top]
    children = _task_forest(rng, top, order[n_top : n_top + n_sub])
    occurrences = _occurrences(top, children)
    by_task: dict[int, list[int]] = {}
    for d, entry in enumerate(datasets):
        for task_i in entry.tasks:
            by_task.setdefault(task_i, []).append(d)
    boards = _plan_boards(rng, cat, datasets, by_task, order[: n_top + n_sub], rows)
    _scale_boards(boards, occurrences, rows)
    boards_by_task: dict[int, list[_Board]] = {}
    for b in boards:
        boards_by_task.setdefault(b.task, []).append(b)
    return top, children, boards_by_task


def _task_forest(rng: random.Random, top: list[int], subtasks: list[int]) -> dict[int, list[int]]:
    """Each task's subtasks: the subtasks placed under a top-level task or under another
    subtask (up to 3 deep), and some then repeated under other top-level parents (never
    under their own ancestors)."""
    children: dict[int, list[int]] = {t: [] for t in [*top, *subtasks]}
    depth = dict.fromkeys(top, 0)
    placed: list[int] = []
    for t in subtasks:
        options = [c for c in placed if depth[c] < 3]
        parent = rng.choice(options) if options and rng.random() < 0.35 else rng.choice(top)
        children[parent].append(t)
        depth[t] = depth[parent] + 1
        placed.append(t)
    shared = [t for t in placed if not children[t]]
    rng.shuffle(shared)
    n_shared = max(1, len(placed) // 10) if placed else 0
    ancestors = _ancestors(children)
    for t in shared[:n_shared]:
        for parent in rng.sample(top, min(len(top), rng.randint(1, 2))):
            if parent not in ancestors[t] and t not in children[parent]:
                children[parent].append(t)
    return children


def _plan_boards(rng: random.Random, cat, datasets, by_task, tasks: list[int], rows: int):
    """A few leaderboards for most tasks, mostly on datasets of the task's own."""
    _, topics, _ = _language()
    boards: list[_Board] = []
    max_boards = max(1, rows // 3)
    for t in tasks:
        task = cat.tasks[t]
        k = rng.choices((0, 1, 2, 3, 4, 6), cum_weights=(20, 55, 75, 87, 95, 100))[0]
        pool = by_task.get(t) or []
        for _ in range(k):
            if len(boards) >= max_boards:
                break
            d = rng.choice(pool) if pool and rng.random() < 0.7 else rng.randrange(len(datasets))
            name = datasets[d].name
            if any(b.task == t and b.dataset == name for b in boards[-8:]):
                continue
            metrics = rng.sample(topics[task.topic].metrics, rng.randint(1, 3))
            if rng.random() < 0.1:
                metrics.append("Params")
            weight = max(1, int(rng.paretovariate(1.2)))
            boards.append(_Board(t, name, _name_slug(name), metrics, weight, rng.getrandbits(48)))
    return boards


def _scale_boards(boards: list[_Board], occurrences: dict[int, int], rows: int) -> None:
    """Scale the board sizes so that all emitted rows (shared subtasks count once per
    occurrence) add up to ``rows`` exactly."""
    mult = [occurrences.get(b.task, 0) for b in boards]
    emitted = sum(m * b.rows for m, b in zip(mult, boards, strict=True))
    if not emitted:
        return
    scale = rows / emitted
    for b in boards:
        b.rows = max(1, int(b.rows * scale))
    singles = [b for m, b in zip(mult, boards, strict=True) if m == 1]
    diff = rows - sum(m * b.rows for m, b in zip(mult, boards, strict=True))
    step = 0
    while diff and singles and step < 10 * len(singles) + abs(diff):
        b = singles[step % len(singles)]
        if diff > 0:
            b.rows += 1
            diff -= 1
        elif b.rows > 1:
            b.rows -= 1
            diff += 1
        step += 1


def _ancestors(children: dict[int, list[int]]) -> dict[int, set[int]]:
    parents: dict[int, list[int]] = {}
    for parent, kids in children.items():
        for kid in kids:
            parents.setdefault(kid, []).append(parent)
    out: dict[int, set[int]] = {}
    for node in children:
        seen: set[int] = set()
        stack = list(parents.get(node, []))
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(parents.get(x, []))
        out[node] = seen
    return out


def _occurrences(top: list[int], children: dict[int, list[int]]) -> dict[int, int]:
    counts: dict[int, int] = {}
    stack = list(top)
    while stack:
        node = stack.pop()
        counts[node] = counts.get(node, 0) + 1
        stack.extend(children.get(node, []))
    return counts


def evaluation_rows(
    seed: int, papers: int = DEFAULT_PAPERS, rows: int = 60_000
) -> Iterator[dict[str, Any]]:
    """evaluation-tables: one nested task object per top-level task.

    About ``rows`` leaderboard rows in all (exactly, counting a shared subtask's rows
    once per place it appears). Some subtasks appear under several parents.
    """
    top, children, boards = _evaluation_plan(seed, papers, rows)
    cat, index = _prepare(seed, papers)
    for t in top:
        yield _task_object(seed, papers, t, children, boards, cat, index)


def _task_object(seed, papers, t, children, boards, cat, index) -> dict[str, Any]:
    task = cat.tasks[t]
    rng = _rng(seed, _S_EVAL, t)
    source_link = None
    if rng.random() < 0.08:
        source_link = {"title": "Task overview", "url": f"https://example.org/tasks/{task.slug}"}
    synonyms = []
    if rng.random() < 0.1:
        synonyms = ["".join(w[0] for w in task.name.split() if w[0].isalpha()).upper()]
    return {
        "task": task.name,
        "categories": list(task.categories),
        "description": task.description,
        "source_link": source_link,
        "datasets": [_board_object(seed, papers, b, task, cat, index) for b in boards.get(t, [])],
        "subtasks": [
            _task_object(seed, papers, c, children, boards, cat, index)
            for c in children.get(t, [])
        ],
        "synonyms": synonyms,
    }


def _board_object(seed, papers, board: _Board, task: _Task, cat, index) -> dict[str, Any]:
    rng = _rng(seed, _S_EVAL, board.key)
    _, topics, functional = _language()
    text = _Text(rng, topics[task.topic], functional)
    bases = [_metric_base(rng, m) for m in board.metrics]
    candidates = index.papers_by_task().get(board.task)
    rows = []
    for r in range(board.rows):
        title, url, date, code_links = _row_paper(
            seed, papers, rng, text, task, candidates, cat, index
        )
        metrics = {
            m: _metric_value(rng, m, r, base) for m, base in zip(board.metrics, bases, strict=True)
        }
        model = text.model_name() if rng.random() < 0.97 else ""
        if model and rng.random() < 0.2:
            model += rng.choice(
                (" (ensemble)", " (single model)", " + TTA", "-Large", " w/o pretraining")
            )
        rows.append(
            {
                "model_name": model,
                "metrics": metrics,
                "paper_title": title,
                "paper_url": url,
                "paper_date": date,
                "code_links": code_links,
                "model_links": [],
                "uses_additional_data": rng.random() < 0.1,
            }
        )
    links = []
    if rng.random() < 0.3:
        url = f"https://paperswithcode.com/sota/{task.slug}-on-{board.dataset_slug}"
        links = [{"title": "Leaderboard", "url": url}]
    return {
        "dataset": board.dataset,
        "description": "" if rng.random() < 0.7 else text.sentences(rng.randint(15, 50), False),
        "dataset_citations": [],
        "dataset_links": links,
        "sota": {"metrics": list(board.metrics), "rows": rows},
        "subdatasets": [],
    }


def _row_paper(seed, papers, rng, text: _Text, task: _Task, candidates, cat, index):
    """A leaderboard row's paper: (title, url, date, code links). Mostly one of the
    archive's (of the board's task, more often than not); else one it does not hold, or
    none at all, sometimes with a date."""
    title, url, date, code_links = "", "", None, []
    roll = rng.random()
    if roll < 0.8:
        if candidates and rng.random() < 0.7:
            i = candidates[rng.randrange(len(candidates))]
        else:
            i = rng.randrange(papers)
        p = _paper(seed, i, cat, index)
        title, date = p.title, p.date
        if p.arxiv_id and rng.random() < 0.8:
            scheme = "http" if rng.random() < 0.7 else "https"
            version = f"v{rng.randint(1, 4)}" if rng.random() < 0.85 else ""
            url = f"{scheme}://arxiv.org/abs/{p.arxiv_id}{version}"
        else:
            url = p.url
        for link in _links(seed, i, cat.sizes.repos)[: rng.randint(0, 2)]:
            repo = _repo(seed, link.repo, cat.sizes.repos)
            code_links.append({"title": repo.full_name, "url": repo.url})
    elif roll < 0.9:  # a paper the archive does not hold
        year = rng.randint(2016, 2025)
        month = rng.randint(1, 12 if year < 2025 else 7)
        title = _make_title(text, task.name)
        date = f"{year}-{month:02d}-{rng.randint(1, 28):02d}"
        if rng.random() < 0.6:
            number = rng.randint(95_000, 99_999)  # a band the archive's ids never use
            url = f"http://arxiv.org/abs/{year % 100:02d}{month:02d}.{number}v1"
        else:
            suffix = rng.randint(10**6, 10**7)  # never an archive slug's "-N"
            url = f"https://paperswithcode.com/paper/{slugify(title)}-{suffix}"
    elif rng.random() < 0.5:
        date = f"{rng.randint(2016, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return title, url, date, code_links


# --- seed-shaped records ----------------------------------------------------------------------

_STATUSES = (*KNOWN_STATUSES, *RARE_STATUSES)
_STATUS_CUM = _cum((45, 20, 10, 24.5, 0.5))
_ENTRY_VERBS = tuple(
    "load compute parse build get make normalize read write eval train predict calc convert "
    "merge split encode decode update init measure sample score collate".split()
)
_DIRS = tuple(
    "src lib models utils tools scripts data eval train core modules layers preprocessing "
    "experiments common".split()
)


def _code_words(rng: random.Random, text: _Text, k: int) -> list[str]:
    """Identifier words: mostly common ones, sometimes the paper's own topic words."""
    common = _repo_words()
    words = [rng.choice(common) if rng.random() < 0.8 else rng.choice(text.topic.content)
             for _ in range(k)]  # fmt: skip
    return [re.sub(r"[^a-z0-9]", "", _ascii(w).lower()) or "x" for w in words]


def _entry(rng: random.Random, text: _Text, language: str) -> str:
    if rng.random() < 0.08:
        return rng.choice(("ff", "f", "d2t", "t2l", "run", "main", "fn"))
    parts = [rng.choice(_ENTRY_VERBS), *_code_words(rng, text, rng.randint(1, 2))]
    if language in ("javascript", "typescript", "java", "go"):
        return parts[0] + "".join(_cap(p) for p in parts[1:])
    return "_".join(parts)


def _path(rng: random.Random, text: _Text, language: str) -> str:
    dirs = rng.sample(_DIRS, rng.choices((0, 1, 2, 3), cum_weights=(15, 55, 90, 100))[0])
    stem = "_".join(_code_words(rng, text, rng.randint(1, 2)))
    return "/".join([*dirs, stem + _EXTENSIONS.get(language, ".py")])


def record_rows(
    seed: int,
    papers: int = DEFAULT_PAPERS,
    share: float = 0.05,
    *,
    start: int = 0,
    stop: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Paper records in the seed-000 shape for about ``share`` of the papers.

    Papers with code links are chosen more often than papers without. Each record's
    paper fields and code links are those of paper_rows/link_rows; its report has 1-30
    samples, and ``summary`` / ``by_repo_kind`` are counted from them (first-appearance
    order), exactly as the site derives them.
    """
    cat, index = _prepare(seed, papers)
    sizes = cat.sizes
    introduced_m, introduced_d = _introduced(seed, papers, sizes.methods, sizes.datasets)
    for i in range(start, papers if stop is None else min(stop, papers)):
        has_links = _unit(seed, i, _S_LINKS) < _LINK_SHARE
        weight = 1.6 if has_links else 0.55
        if _unit(seed, i, _S_RECORD) >= share * weight:
            continue
        p = _paper(seed, i, cat, index)
        body = _body(seed, p, cat, sizes.methods, papers)
        links = _links(seed, i, sizes.repos)
        yield _record(seed, p, body, links, sizes, introduced_m, introduced_d)


def _record(seed, p: _Paper, body, links, sizes: Sizes, introduced_m, introduced_d):
    rng = _rng(seed, p.index, _S_RECORD2)
    _, topics, functional = _language()
    text = _Text(rng, topics[p.topic], functional)
    code_links, repos = _record_repos(seed, rng, p, links, sizes.repos)
    samples = _samples(rng, text, repos)
    read_at = 1_790_000_000 + _mix(seed, p.index, _S_RECORD2) % 2_000_000
    results = []
    if rng.random() < 0.12 and body["tasks"]:
        for _ in range(rng.randint(1, 3)):
            metric = rng.choice(topics[p.topic].metrics)
            results.append(
                {
                    "task": rng.choice(body["tasks"]),
                    "dataset": _dataset_name(rng, text),
                    "model_name": text.model_name(),
                    "metrics": {metric: _metric_value(rng, metric, 0, _metric_base(rng, metric))},
                    "uses_additional_data": False,
                }
            )
    arxiv_metadata = None
    if p.arxiv_id and rng.random() < 0.2:
        arxiv_metadata = {
            "primary_category": rng.choice(("cs.LG", "cs.CV", "cs.CL", "stat.ML", "cs.AI")),
            "categories": rng.sample(["cs.LG", "cs.CV", "cs.CL", "stat.ML", "cs.AI", "cs.RO"], 2),
            "comment": rng.choice((None, "Accepted at a conference", "12 pages, 4 figures")),
            "versions": int(p.url_abs.rsplit("v", 1)[-1]) if p.url_abs else 1,
        }
    return {
        "about": dict(RECORD_ABOUT),
        "url": f"/paper/{p.slug}",
        "title": p.title,
        "arxiv_id": p.arxiv_id,
        "date": p.date,
        "proceeding": p.proceeding or None,
        "authors": body["authors"],
        "abstract": body["abstract"],
        # Records are the site's own export: "nothing" is always null there, as the
        # importer normalises it (the dumps keep their "" / null mix on purpose).
        "url_abs": p.url_abs or None,
        "url_pdf": p.url_pdf or None,
        "source": dict(RECORD_SOURCE),
        "code_links": code_links,
        "tasks": list(body["tasks"]),
        "methods": [m["name"] for m in body["methods"]],
        "datasets_introduced": sorted(introduced_d.get(p.slug, [])),
        "methods_introduced": sorted(introduced_m.get(p.slug, [])),
        "results": results,
        "syntology": _syntology(p, read_at, repos, samples),
        "arxiv_metadata": arxiv_metadata,
        "syntology_extracted_results": None,
    }


def _record_repos(seed, rng, p: _Paper, links, pool: int):
    """The record's code links, and its report's repositories with their kind: the
    linked ones, and often one or two the harvester found elsewhere."""
    code_links = []
    repos: list[tuple[_Repo, str]] = []  # (repo, kind)
    for link in links:
        repo = _repo(seed, link.repo, pool)
        code_links.append(
            {
                "paper_slug": p.slug,
                "repo_url": repo.url,
                "is_official": int(link.is_official),
                "mentioned_in_paper": int(link.mentioned_in_paper),
                "mentioned_in_github": int(link.mentioned_in_github),
                "framework": repo.framework,
                "reach": repo.reach_obj,
            }
        )
        kind = (
            "official"
            if link.is_official
            else "named_in_paper"
            if link.mentioned_in_paper
            else "listed"
        )
        repos.append((repo, kind))
    linked = {r.index for r, _ in repos}
    harvested = 0 if repos and rng.random() < 0.6 else rng.randint(1, 2)
    for _ in range(harvested):
        r = rng.randrange(pool)
        if r in linked:
            continue
        linked.add(r)
        repos.append(
            (_repo(seed, r, pool), "found_in_text" if rng.random() < 0.4 else "community")
        )
    return code_links, repos


def _samples(rng, text: _Text, repos: list[tuple[_Repo, str]]) -> list[dict[str, Any]]:
    """1-30 samples from the report's repositories (the first weighs most), in the
    order the site lists them."""
    n_samples = 1 + min(29, int(rng.expovariate(1 / 7)))
    repo_weights = [3 if k == 0 else 1 for k in range(len(repos))]
    samples = []
    for _ in range(n_samples):
        repo, kind = rng.choices(repos, weights=repo_weights)[0]
        language = repo.language if rng.random() < 0.9 else "python"
        status = _pick(rng, _STATUSES, _STATUS_CUM)
        if status == "ran":
            tier = None
        elif status in CONTRACT_CHECK:
            tier = rng.choice(("deterministic", "deterministic", "well_formed", "metamorphic"))
        else:
            tier = None
        path = _path(rng, text, language)
        digest = _hex(rng, 16)
        samples.append(
            {
                "code_sha256_prefix": digest,
                "entry": _entry(rng, text, language),
                "repo": repo.full_name,
                "repo_kind": kind,
                "path": path,
                "file_url": f"{repo.url}/blob/HEAD/{path}",
                "link_basis": "harvester_set" if kind != "found_in_text" else "paper_text",
                "language": language,
                "status": status,
                "verification_level": 0
                if status not in CONTRACT_CHECK
                else rng.choice((1, 1, 1, 2)),
                "contract_check": CONTRACT_CHECK.get(status),
                "metamorphic_tier": tier,
                "behaviour_fingerprint": rng.random() < 0.4,
                "licence": repo.spdx,
                "inline_ok": repo.spdx in _PERMISSIVE,
                "mcp_get_code": {"code_sha256": digest},
            }
        )
    samples.sort(key=lambda s: (s["entry"], s["path"]))
    return samples


def _syntology(p: _Paper, read_at: int, repos, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The record's execution report, its counts taken from its samples (first
    appearance order), as the site derives them."""
    summary: dict[str, int] = {}
    by_kind: dict[str, dict[str, Any]] = {}
    for s in samples:
        summary[s["status"]] = summary.get(s["status"], 0) + 1
        entry = by_kind.setdefault(s["repo_kind"], {"samples": 0, "ran": 0, "repos": set()})
        entry["samples"] += 1
        entry["ran"] += s["status"].startswith("ran")
        entry["repos"].add(s["repo"])
    key = p.arxiv_id or p.slug
    mcp_key = {"arxiv_id": p.arxiv_id} if p.arxiv_id else {"paper_slug": p.slug}
    return {
        "syntology_url": f"https://syntology.ai/paper/{key}",
        "atlas_url": f"https://app.syntology.ai/?focus={key}",
        "mcp": {"get_harvested_code_for_paper": mcp_key},
        "developers": "https://syntology.ai/developers",
        "read_at": _iso(read_at),
        "read_at_is": READ_AT_IS,
        "claim": CLAIM,
        "repos": [
            {
                "provenance": ARCHIVE_PROVENANCE
                if kind in ("official", "named_in_paper", "listed")
                else f"syntology:{kind}",
                "url": repo.url,
                "reach": repo.reach_obj,
            }
            for repo, kind in repos
        ],
        "summary": summary,
        "by_repo_kind": {
            kind: {"samples": e["samples"], "ran": e["ran"], "repositories": len(e["repos"])}
            for kind, e in by_kind.items()
        },
        "repo_kind_vocabulary": dict(REPO_KIND_VOCABULARY),
        "n_pointer_only_for_licence": sum(not s["inline_ok"] for s in samples),
        "samples": samples,
    }


def _iso(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat()
