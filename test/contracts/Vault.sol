// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A contract of the operator's own, for custom datasets (docs/custom-datasets.md):
/// events with inputs of every ABI kind a declaration maps to a column.
contract Vault {
    event Deposited(address indexed who, uint256 amount, int64 delta, bool flag, bytes32 tag);
    event WithdrawalRequested(address indexed owner, address receiver, int256 change, string memo, bytes payload, uint8 small, uint64 big);
    event Tagged(string indexed label, uint256[] ids, address[2] pair, int24 tick);
    /// Not declared by the tests' dataset: its logs must stay out.
    event Ignored(uint256 x);

    function deposit(address who, uint256 amount, int64 delta, bool flag, bytes32 tag) external {
        emit Deposited(who, amount, delta, flag, tag);
    }

    function requestWithdrawal(address owner, address receiver, int256 change, string calldata memo, bytes calldata payload, uint8 small, uint64 big) external {
        emit WithdrawalRequested(owner, receiver, change, memo, payload, small, big);
    }

    function tag(string calldata label, uint256[] calldata ids, address[2] calldata pair, int24 tick) external {
        emit Tagged(label, ids, pair, tick);
        emit Ignored(ids.length);
    }
}
