"""Pretraining the biLM (``elmo pretrain``) and its perplexity (``elmo perplexity``).

- ``settings``: ``PretrainSettings`` (every field an ``elmo pretrain`` option), ``PRESETS``,
  and the checks that refuse a run before anything is written; ``options``: ``PretrainSettings`` itself and the
  defaults that ``elmo pretrain --help`` and ``elmo perplexity --help`` state, without torch.
- ``vocab`` / ``data``: the softmax's word vocabulary; resumable batches (of ``hf_elmo.corpus`` sentences),
  collation (ahead, in worker processes).
- ``model``: the LM and optimizer a run trains, and the biLM path it trains on.
- ``trainer``: ``pretrain(settings)`` and the ``Trainer`` loop; ``distributed`` its DDP
  collectives; ``checkpoints`` what a killed run resumes from.
- ``evaluation``: full-softmax perplexity, ``load_lm``; ``output``: the model folder and card.
"""
