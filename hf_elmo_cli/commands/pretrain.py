"""``elmo pretrain TRAIN_FILE OUTPUT_DIR``: train the biLM (from scratch or continued), resumable, DDP-ready."""

from __future__ import annotations

import argparse
import json

from ._args import positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pretrain",
        help="pretrain (or continue pretraining) the ELMo biLM on a text file; works under torchrun",
        description="Train the biLM on a corpus of one sentence per line (whitespace tokens). The run "
        "checkpoints to OUTPUT_DIR.checkpoint and resumes from there when restarted with the same "
        "command; at the end it writes OUTPUT_DIR (save_pretrained folder, vocab.txt, model card). "
        "Under `torchrun --nproc_per_node N` it trains with DDP, each rank on its own shard.",
    )
    parser.add_argument("train_file", help="training text: one sentence per line, tokens split by whitespace")
    parser.add_argument("output_dir", help="folder for the final model")
    data = parser.add_argument_group("data and run length")
    data.add_argument("--valid-file", help="held-out text: its full-softmax perplexity goes into the model card")
    length = data.add_mutually_exclusive_group(required=True)
    length.add_argument("--epochs", type=float, help="passes over the training file (fractions allowed)")
    length.add_argument("--max-tokens", type=int, help="training tokens to see (all ranks together)")
    data.add_argument("--tokens-per-batch", type=int, default=2048,
                      help="padded tokens per batch and rank, markers included (default 2048)")
    data.add_argument("--max-sentence-tokens", type=int, default=100, help="longer lines are cut into pieces")
    data.add_argument("--vocab", dest="vocab_file", help="vocab.txt (one word a line, with <S>, </S>, <UNK>)")
    data.add_argument("--vocab-size", type=int, default=50_000, help="words of a built vocabulary (default 50000)")
    data.add_argument("--min-count", type=int, default=3, help="minimum count of a built vocabulary's words")
    data.add_argument("--data-workers", type=int,
                      help="processes that collate batches ahead of the training step (default 4 on GPU, 0 on CPU)")
    data.add_argument("--data-description", default="", help="the training data, for the model card")
    data.add_argument("--pre-tokenizer", default="whitespace", metavar="whitespace|spacy:LANG",
                      help="how TRAIN_FILE's tokens were made from raw text (default whitespace; spacy:en for "
                      "spaCy's English rules); saved with the tokenizer, which then splits raw text the same way")
    model = parser.add_argument_group("model")
    model.add_argument("--init-model", help="continue from this model folder (converted, original or pretrained LM)")
    model.add_argument("--preset", default="cpu", choices=["cpu", "small", "original"],
                       help="size preset for a model from scratch (default cpu)")
    for name, kind, what in (("lstm-dim", int, "LSTM cell size"), ("projection-dim", int, "projection size"),
                             ("n-layers", int, "LSTM layers"), ("n-highway", int, "highway layers")):
        model.add_argument(f"--{name}", type=kind, help=f"override the preset's {what}")
    model.add_argument("--filters", type=json.loads, help='override the char-CNN filters, e.g. "[[1,32],[2,64]]"')
    model.add_argument("--no-clip", action="store_true",
                       help="train without cell/projection clipping (cell_clip = proj_clip = None), which lets "
                       "training run on torch's fused LSTM kernel (cuDNN on GPU)")
    model.add_argument("--bilm-implementation", choices=["auto", "fast", "plain", "fused"], default="auto",
                       help="biLM path in training (default auto: fused for a clip-free model on CUDA, else fast); "
                       "the saved model keeps its config's path (fast)")
    model.add_argument("--token-embedding", choices=["char_cnn", "word"], default="char_cnn",
                       help="word: the word-embedding baseline instead of the char CNN")
    model.add_argument("--softmax", choices=["sampled", "full"], default="sampled", help="training softmax")
    model.add_argument("--num-sampled", type=int, default=4096, help="log-uniform draws of the sampled softmax")
    opt = parser.add_argument_group("optimisation")
    opt.add_argument("--optimizer", choices=["adagrad", "adam"], default="adagrad")
    opt.add_argument("--lr", type=float, help="learning rate (default 0.2 for adagrad, 1e-3 for adam)")
    opt.add_argument("--clip-norm", type=float, default=10.0, help="gradient norm clip (0: none)")
    opt.add_argument("--dropout", type=float, default=0.1)
    opt.add_argument("--amp", action="store_true", help="bfloat16 autocast on GPU")
    opt.add_argument("--seed", type=int, default=0)
    opt.add_argument("--threads", type=positive_int, help="torch CPU threads per process")
    run = parser.add_argument_group("checkpoints and output")
    run.add_argument("--checkpoint-dir", help="default: OUTPUT_DIR.checkpoint")
    run.add_argument("--checkpoint-every-steps", type=int, default=0)
    run.add_argument("--checkpoint-every-minutes", type=float, default=10.0)
    run.add_argument("--max-steps", type=int, help="checkpoint and stop after this many steps (resume later)")
    run.add_argument("--max-minutes", type=float,
                     help="end the run (checkpoint and final model folder) after the step that reaches this "
                     "many minutes of training time, even before its token budget")
    run.add_argument("--save-dtype", choices=["float32", "float16", "bfloat16"], default="float32")
    run.add_argument("--overwrite", action="store_true", help="replace a non-empty OUTPUT_DIR")
    run.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the final folder to this Hub repository")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_command)


def run_command(args: argparse.Namespace) -> int:
    import torch

    from hf_elmo.training.settings import PretrainSettings
    from hf_elmo.training.trainer import pretrain

    if args.threads:
        torch.set_num_threads(args.threads)
    overrides = {k: getattr(args, k) for k in ("lstm_dim", "projection_dim", "n_layers", "n_highway", "filters")
                 if getattr(args, k) is not None}
    if args.no_clip:
        from hf_elmo.training.settings import NO_CLIP

        overrides.update(NO_CLIP)
    settings = PretrainSettings(
        train_file=args.train_file, output_dir=args.output_dir, valid_file=args.valid_file,
        init_model=args.init_model, preset=args.preset, config_overrides=overrides,
        token_embedding=args.token_embedding, vocab_file=args.vocab_file, vocab_size=args.vocab_size,
        min_count=args.min_count, softmax=args.softmax, num_sampled=args.num_sampled, epochs=args.epochs,
        max_tokens=args.max_tokens, tokens_per_batch=args.tokens_per_batch,
        max_sentence_tokens=args.max_sentence_tokens, optimizer=args.optimizer, lr=args.lr,
        clip_norm=args.clip_norm, dropout=args.dropout, amp=args.amp, seed=args.seed,
        checkpoint_dir=args.checkpoint_dir, checkpoint_every_steps=args.checkpoint_every_steps,
        checkpoint_every_minutes=args.checkpoint_every_minutes, save_dtype=args.save_dtype,
        data_description=args.data_description, pre_tokenizer=args.pre_tokenizer, max_steps=args.max_steps,
        max_minutes=args.max_minutes, bilm_implementation=args.bilm_implementation, data_workers=args.data_workers,
    )
    out = pretrain(settings, overwrite=args.overwrite, show_progress=not args.no_progress)
    if out is None:
        print(f"stopped at --max-steps {args.max_steps}; run the same command again to resume")
        return 0
    if args.push_to_hub and int(__import__("os").environ.get("RANK", "0")) == 0:
        from huggingface_hub import HfApi

        api = HfApi()
        api.create_repo(args.push_to_hub, exist_ok=True)
        api.upload_folder(folder_path=str(out), repo_id=args.push_to_hub)
        print(f"pushed {out} to {args.push_to_hub}")
    print(f"wrote {out}")
    return 0
