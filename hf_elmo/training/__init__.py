"""Pretraining the biLM (``elmo pretrain``) and its perplexity (``elmo perplexity``)."""
