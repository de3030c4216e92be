"""The formats of ``export`` and the dtypes of each, which ``elmo export --help`` lists: the standard library only
(none of it imported), so that the command line reads them without importing ``hf_elmo`` (torch:
``hf_elmo_cli.commands._args.hf_elmo_module``)."""

#: Export format -> the graph's file name in the folder.
FORMATS = {"onnx": "model.onnx", "torch-export": "model.pt2"}
#: Compute dtypes per format (ONNX Runtime's CPU kernels have no bfloat16 convolution).
DTYPES = {"onnx": ("float32", "float16"), "torch-export": ("float32", "float16", "bfloat16")}
