# csrc/kalah.h for Cython: the board layout and one move, shared by the core
# (_core.pxd) and the vectorized environment (_vector.pyx).

cdef extern from "kalah.h" nogil:
    enum:
        KALAH_PITS          # pits per side: 6
        KALAH_STORE         # the mover's store: slot 6
        KALAH_OPP_PIT       # the opponent's first pit: slot 7
        KALAH_OPP_STORE     # the opponent's store: slot 13
        KALAH_SLOTS         # 14
        KALAH_HALF          # one player's pits and store: 7
        KALAH_MAX_SEEDS     # 144 = 12 pits x 12 seeds
    enum:
        CAPTURE_RULE_COUNT  # the capture rules are 0..CAPTURE_RULE_COUNT - 1
    enum:
        PLAY_EXTRA_TURN
        PLAY_GAME_OVER
    enum:
        KALAH_CYCLE         # slots a sowing visits: 13
    int kalah_row_sum(const int *row)
    void kalah_rotate(int *b)
    const char *kalah_capture_name(int capture)
    int kalah_captures(int capture, int facing)
    int kalah_play(int *b, int pit, int capture, int *captured)
