// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

/// A v3-style factory: the real PoolCreated event, tokens sorted as the real one sorts them.
contract V3Factory {
    event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool);

    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool) {
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        int24 spacing = fee == 100 ? int24(1) : fee == 500 ? int24(10) : fee == 3000 ? int24(60) : int24(200);
        pool = address(new V3Pool(token0, token1, fee));
        emit PoolCreated(token0, token1, fee, spacing, pool);
    }
}

/// A v3-style pool emitting the real Swap, Mint, Burn and Collect events. The
/// amounts and prices are the caller's; the tokens really move.
contract V3Pool {
    address public immutable token0;
    address public immutable token1;
    uint24 public immutable fee;
    uint128 public liquidity;

    event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1);
    event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);

    constructor(address token0_, address token1_, uint24 fee_) {
        token0 = token0_;
        token1 = token1_;
        fee = fee_;
    }

    function mint(address owner, int24 tickLower, int24 tickUpper, uint128 amount, uint256 amount0, uint256 amount1) external {
        IERC20Like(token0).transferFrom(msg.sender, address(this), amount0);
        IERC20Like(token1).transferFrom(msg.sender, address(this), amount1);
        liquidity += amount;
        emit Mint(msg.sender, owner, tickLower, tickUpper, amount, amount0, amount1);
    }

    function burn(int24 tickLower, int24 tickUpper, uint128 amount, uint256 amount0, uint256 amount1) external {
        liquidity -= amount;
        emit Burn(msg.sender, tickLower, tickUpper, amount, amount0, amount1);
    }

    function collect(address recipient, int24 tickLower, int24 tickUpper, uint128 amount0, uint128 amount1) external {
        IERC20Like(token0).transfer(recipient, amount0);
        IERC20Like(token1).transfer(recipient, amount1);
        emit Collect(msg.sender, recipient, tickLower, tickUpper, amount0, amount1);
    }

    /// Takes amountIn of one token from the caller, pays amountOut of the other to recipient.
    function swap(address recipient, bool zeroForOne, uint256 amountIn, uint256 amountOut, uint160 sqrtPriceX96, int24 tick) external {
        (address tin, address tout) = zeroForOne ? (token0, token1) : (token1, token0);
        IERC20Like(tin).transferFrom(msg.sender, address(this), amountIn);
        IERC20Like(tout).transfer(recipient, amountOut);
        (int256 a0, int256 a1) = zeroForOne ? (int256(amountIn), -int256(amountOut)) : (-int256(amountOut), int256(amountIn));
        emit Swap(msg.sender, recipient, a0, a1, sqrtPriceX96, liquidity, tick);
    }
}

/// A router: the pool sees the router as `sender`, the swapper is the transaction's sender.
contract V3Router {
    function swap(V3Pool pool, address tokenIn, bool zeroForOne, uint256 amountIn, uint256 amountOut, uint160 sqrtPriceX96, int24 tick) external {
        IERC20Like(tokenIn).transferFrom(msg.sender, address(this), amountIn);
        IERC20Like(tokenIn).approve(address(pool), amountIn);
        pool.swap(msg.sender, zeroForOne, amountIn, amountOut, sqrtPriceX96, tick);
    }
}
