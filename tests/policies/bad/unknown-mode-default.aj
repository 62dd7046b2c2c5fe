policy p {
    mode worker { gpu off; }
    default mode wroker;
}
