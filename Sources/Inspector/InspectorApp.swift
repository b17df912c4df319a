import Replay
