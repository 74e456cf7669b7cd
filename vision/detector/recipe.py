"""Reading a detector recipe (``configs/detector/*.yaml``) into its dataclass, every field
checked against the type the dataclass declares (a YAML typo such as ``epochs: abc`` is one
line naming the field, not a failure deep inside a training an hour later)."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import files
from referee.errors import ConfigError


def load_config(cls, path: str | Path, what: str):
    """``cls(**fields)`` from the YAML file at ``path``, or a one-line error naming the file and
    what is wrong: unreadable, not a mapping, an unknown or missing field or a wrong value."""
    p = Path(path)
    raw = files.read_yaml_mapping(p, what)
    unknown = set(raw) - set(cls.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"{p}: unknown field(s) {', '.join(sorted(unknown))}")
    hints = typing.get_type_hints(cls)
    for name, value in raw.items():
        if not _fits(value, hints[name]):
            raise ConfigError(f"{p}: field '{name}': expected {_name(hints[name])}, got {value!r}")
    try:
        return cls(**raw)
    except TypeError as e:
        raise ConfigError(f"{p}: {e}") from None


def _fits(value: Any, hint: Any) -> bool:
    """Whether a YAML value fits a field's type (an int fits a float; a bool is no number)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, h) for h in typing.get_args(hint))
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, origin or hint)


def _name(hint: Any) -> str:
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_name(h) for h in args)
    if hint is type(None):
        return "nothing (null)"
    names = {int: "an integer", float: "a number", str: "a text", bool: "true or false",
             dict: "a mapping", list: "a list"}
    return names.get(typing.get_origin(hint) or hint, str(hint))


@dataclass
class NetworkRecipe:
    """The settings every small network of the project trains with (the classifiers, the corner
    refiner): one optimiser loop over jittered cuts of labelled cards."""

    stage: str
    epochs: int = 10
    batch: int = 128
    lr: float = 0.003
    weight_decay: float = 0.0005
    seed: int = 0
    jitter: float = 0.08  # box edge jitter, share of the box size (the finder's error)
    copies: int = 2  # jittered cuts per labelled card (train split)
    width: int = 48  # channels of the first stage; doubled at each stride
    threads: int | None = None  # torch threads; 1 when another training shares the cores
    device: str = "cpu"  # where the network trains: cpu, or a GPU as 0, 1, ... (cuda:N)
    data: dict[str, Any] = field(default_factory=dict)  # the rendered set trained on without --data

    WHAT: typing.ClassVar[str] = "network recipe"

    @classmethod
    def load(cls, path: str | Path):
        return load_config(cls, path, cls.WHAT)


PROGRESS = "last.pt"  # a run folder's state after its last whole epoch, for --resume


def save_progress(out: Path, net, opt, sched, generator, epoch: int, best: float, history: list) -> None:
    """Everything a training loop needs to go on after ``epoch``, written atomically to
    ``out/last.pt`` (a kill while writing keeps the previous epoch's)."""
    import torch

    state = {"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
             "generator": generator.get_state(), "torch_rng": torch.get_rng_state(),  # dropout's
             "epoch": epoch, "best": best, "history": history}
    with files.replacing(out / PROGRESS) as tmp:
        torch.save(state, tmp)


def resume_progress(out: Path, net, opt, sched, generator) -> tuple[int, float, list]:
    """Load ``out/last.pt`` into the loop's objects; the last whole epoch, the best score so far
    and the history. A run folder without one is a one-line error."""
    import torch

    from vision.detector.model_files import load_checkpoint

    path = out / PROGRESS
    if not path.is_file():
        raise ConfigError(f"{path}: nothing to resume (no epoch of this run finished)")
    state = load_checkpoint(path, "training state")
    net.load_state_dict(state["net"])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    generator.set_state(state["generator"])
    torch.set_rng_state(state["torch_rng"])
    return state["epoch"], state["best"], state["history"]


def optimiser(net, cfg: NetworkRecipe, examples: int, epochs: int):
    """AdamW with a one-cycle schedule over ``epochs`` of ``examples``: the recipe every small
    network of the project trains with."""
    import torch

    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = epochs * ((examples + cfg.batch - 1) // cfg.batch)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=steps, pct_start=0.15)


def torch_device(spec: str) -> str:
    """``0`` -> ``cuda:0`` (the finder's Ultralytics spelling); ``cpu``, ``cuda:1`` as given.
    A list (``0,1``: the finder trains on every GPU of it with Ultralytics' DDP) trains the
    classifier and the corner refiner, small networks, on its first GPU."""
    first = spec.split(",")[0].strip()
    return f"cuda:{first}" if first.isdigit() else first


@dataclass
class Loop:
    """A training loop's state: optimiser, schedule, the seeded generator of its batches, and
    where it stands (the last whole epoch, the best score so far, the history)."""

    opt: Any
    sched: Any
    gen: Any
    device: str  # where the network is: the recipe's device
    epochs: int  # how many the loop runs to
    done: int
    best: float
    history: list


def start_loop(net, cfg: NetworkRecipe, out: Path, examples: int, epochs: int | None, resume: bool, log,
               name: str, worst: float = -1.0) -> Loop:
    """The loop every small network trains with (:func:`optimiser`, a generator seeded from the
    recipe) over ``epochs`` (the recipe's when None), from its start or, with ``resume``, after
    the last whole epoch saved in ``out``; ``worst`` is the best score before any epoch (-1 for
    an accuracy, infinity for an error). The network is moved to the recipe's device; its
    inputs are made on the CPU."""
    import torch

    device = torch_device(cfg.device)
    net.to(device)
    epochs = epochs or cfg.epochs
    opt, sched = optimiser(net, cfg, examples, epochs)
    gen = torch.Generator().manual_seed(cfg.seed)
    done, best, history = 0, worst, []
    if resume:
        done, best, history = resume_progress(out, net, opt, sched, gen)
        log(f"{name}: resuming after epoch {done}/{epochs}")
    return Loop(opt, sched, gen, device, epochs, done, best, history)


def one_epoch(net, opt, sched, generator, examples: int, batch: int, loss_of) -> float:
    """One pass over ``examples`` in an order drawn from ``generator``; ``loss_of(indices)``
    gives a batch's loss. Returns the mean loss."""
    import torch

    net.train()
    order = torch.randperm(examples, generator=generator).numpy()
    total = 0.0
    for i in range(0, examples, batch):
        idx = order[i : i + batch]
        loss = loss_of(idx)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        total += float(loss.detach()) * len(idx)
    return total / max(examples, 1)


def export_batched(net, dest: Path, size: tuple[int, int], inputs: str, outputs: str) -> Path:
    """``net`` (in eval mode) to ONNX at ``dest`` for (n, 3, h, w) inputs of ``size`` (w, h),
    n free: every card of a frame goes through in one run."""
    import torch

    w, h = size
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, h, w), str(dest), input_names=[inputs], output_names=[outputs],
                      dynamic_axes={inputs: {0: "n"}, outputs: {0: "n"}}, opset_version=17, dynamo=False)
    return dest
